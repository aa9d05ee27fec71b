import Dispatch
import Foundation

/// Runs tests of the current test binary in a child process, for a fault that ends the whole process (a
/// `preconditionFailure` inside FoundationNetworking or AsyncHTTPClient) and so cannot be observed in-process.
///
/// The child runs only the tests `filter` matches, with `environment` added to this process's environment; a test
/// meant for the child alone is enabled by one of those variables:
///
/// ```swift
/// @Test(.enabled(if: ProcessInfo.processInfo.environment["MY_CHILD"] == "1"))
/// func crashingChild() async throws { /* the request that stops the process */ }
///
/// @Test func theFaultStopsTheProcess() async throws {
///     guard ProcessInfo.processInfo.environment["MY_CHILD"] == nil else { return }
///     let ending = try await ChildTestProcess.run(filter: "crashingChild", environment: ["MY_CHILD": "1"])
///     #expect(ending.reason == .uncaughtSignal)
/// }
/// ```
public enum ChildTestProcess {
    /// How a child process ended.
    public struct Ending: Sendable {
        /// Whether it exited or died of a signal.
        public var reason: Process.TerminationReason
        /// Its exit status, or the signal that ended it.
        public var status: Int32
        /// Everything it wrote to its standard error.
        public var standardError: String
        /// Whether the time limit ran out and the child was terminated (`SIGTERM`) rather than ending on its own.
        public var timedOut: Bool
    }

    /// Runs this test binary as a child that runs only the tests matching `filter` (Swift Testing), with
    /// `environment` added, and returns how it ended. The child is waited for on a dispatch thread, never on one of
    /// the cooperative pool's few threads; after `timeLimit` seconds it is terminated.
    public static func run(
        filter: String, environment: [String: String], timeLimit: TimeInterval = 45
    ) async throws -> Ending {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result { try runBlocking(filter: filter, environment: environment, timeLimit: timeLimit) })
            }
        }
    }

    private static func runBlocking(
        filter: String, environment: [String: String], timeLimit: TimeInterval
    ) throws -> Ending {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--testing-library", "swift-testing", "--filter", filter]
        child.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        let errors = Pipe()
        child.standardError = errors
        child.standardOutput = FileHandle.nullDevice
        try child.run()
        // Read to the end (the child's stderr closes when it dies), bounded by a watchdog that terminates it.
        let terminated = Locked(false)
        let watchdog = DispatchWorkItem { [child] in
            guard child.isRunning else { return }
            terminated.withLock { $0 = true }
            child.terminate()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit, execute: watchdog)
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        watchdog.cancel()
        return Ending(
            reason: child.terminationReason, status: child.terminationStatus, standardError: output,
            timedOut: terminated.withLock { $0 })
    }
}
