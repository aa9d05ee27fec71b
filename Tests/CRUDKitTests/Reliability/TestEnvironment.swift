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

    /// A test's time limit in minutes: five times `minutes` in ordinary runs, fifteen times under a sanitizer. The
    /// limit only catches hangs, and must outlast the suites running in parallel, not the test alone: a test that
    /// starts beside the CPU-heavy suites waits for the pool's threads with all of them, so dozens of tests of a few
    /// milliseconds each took 58–63 s against their 1-minute limit in ordinary runs on the 2 cores at load 8 (they
    /// passed only because the limit's own timer waited for a thread too), and 880 s under AddressSanitizer.
    static func minutes(_ minutes: Int) -> Int { underSanitizer ? minutes * 15 : minutes * 5 }

    /// Whether resident-memory bounds are meaningful in this run (Linux, no sanitizer).
    static var measuresResidentMemory: Bool {
        #if os(Linux)
        !underSanitizer
        #else
        false
        #endif
    }
}
