import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// A server declaring `Content-Length: 9223372036854775800` (2^63 − 8), on a plain `GET` or on a resumed `206`.
    ///
    /// FoundationNetworking on Linux aborts the process on it before any delegate callback (2^62 gives a clean
    /// ``CRUDError/responseTooLarge(limit:)``), so no code above URLSession can catch it: the contract names it as
    /// ``TransportContract/Check/abortsProcess`` for ``URLSessionTransport`` and this suite runs each such check in a
    /// child process, which must die (if FoundationNetworking is ever fixed, the test says so).
    /// `AsyncHTTPClientTransport` passes these checks in-process.
    @Suite(.timeLimit(.minutes(TestEnvironment.minutes(2)))) struct HugeContentLengthTests {
        static let childVariable = "CRUDKIT_HUGE_LENGTH_CHILD"

        /// The contract's checks of a length near `Int64.max` that abort URLSessionTransport's process.
        static let checks = URLSessionContractTests.contract.checks.filter {
            $0.abortsProcess.contains("URLSessionTransport") && $0.name.contains("Int64.max")
        }

        /// Runs in the child process only: the check named by the environment, which makes FoundationNetworking abort.
        @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil))
        func hugeContentLengthChild() async throws {
            let name = ProcessInfo.processInfo.environment[Self.childVariable]
            let check = try #require(Self.checks.first { $0.name == name })
            try? await check.run()
        }

        @Test func theAbortingChecksAreNamed() {
            #expect(Self.checks.count == 3)
            for check in Self.checks {
                #expect(check.knownLimitations["URLSessionTransport"]?.contains("2^63 - 8") == true)
            }
        }

        #if os(Linux)
        @Test(arguments: checks)
        func aLengthNearInt64MaxAbortsFoundationNetworkingInAChildProcess(check: TransportContract.Check) async throws {
            guard ProcessInfo.processInfo.environment[Self.childVariable] == nil else { return }
            // The child is waited for on a dispatch thread, never on one of the cooperative pool's few threads.
            let (reason, status, output) = try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(with: Result { try Self.runChild(check.name) }) }
            }
            #expect(
                reason == .uncaughtSignal, "the child ended normally: FoundationNetworking fixed? stderr: \(output)")
            #expect(status != SIGTERM, "the child hung until the watchdog stopped it; stderr: \(output)")
        }

        /// Runs the test binary as a child that only runs `hugeContentLengthChild` for `name`; how it ended (with the
        /// signal or exit status), and its stderr.
        private static func runChild(_ name: String) throws -> (Process.TerminationReason, Int32, String) {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            child.arguments = ["--testing-library", "swift-testing", "--filter", "hugeContentLengthChild"]
            var environment = ProcessInfo.processInfo.environment
            environment[Self.childVariable] = name
            child.environment = environment
            let errors = Pipe()
            child.standardError = errors
            child.standardOutput = FileHandle.nullDevice
            try child.run()
            // Read to the end (the child's stderr closes when it dies), bounded by a watchdog that kills it.
            let watchdog = DispatchWorkItem { [child] in if child.isRunning { child.terminate() } }
            DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
            let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            watchdog.cancel()
            return (child.terminationReason, child.terminationStatus, output)
        }
        #endif
    }
}
