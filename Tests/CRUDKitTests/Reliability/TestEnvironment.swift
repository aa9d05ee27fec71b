import Foundation

/// What the tests need to know about how they are run.
enum TestEnvironment {
    /// Whether the suite runs under ThreadSanitizer or AddressSanitizer (`.ci/sanitizers.sh` exports
    /// `CRUDKIT_SANITIZER=1`).
    ///
    /// Under a sanitizer the process's resident memory includes the sanitizer's shadow memory (several bytes per
    /// byte touched), so resident-memory bounds mean nothing there and are checked only in ordinary runs; the
    /// behaviour under test (byte-exact bodies, errors, no leaks) is still checked.
    static let underSanitizer = ProcessInfo.processInfo.environment["CRUDKIT_SANITIZER"] != nil

    /// A test's time limit in minutes: `minutes` in ordinary runs, five times that under a sanitizer, which runs
    /// every test several times slower while all of them share two cores. The limit only catches hangs.
    static func minutes(_ minutes: Int) -> Int { underSanitizer ? minutes * 5 : minutes }

    /// Whether resident-memory bounds are meaningful in this run (Linux, no sanitizer).
    static var measuresResidentMemory: Bool {
        #if os(Linux)
        !underSanitizer
        #else
        false
        #endif
    }
}
