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

    /// Whether resident-memory bounds are meaningful in this run (Linux, no sanitizer).
    static var measuresResidentMemory: Bool {
        #if os(Linux)
        !underSanitizer
        #else
        false
        #endif
    }
}
