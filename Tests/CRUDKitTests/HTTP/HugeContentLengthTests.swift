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
            let ending = try await ChildTestProcess.run(
                filter: "hugeContentLengthChild", environment: [Self.childVariable: check.name], timeLimit: 60)
            let (reason, output) = (ending.reason, ending.standardError)
            #expect(
                reason == .uncaughtSignal, "the child ended normally: FoundationNetworking fixed? stderr: \(output)")
            #expect(!ending.timedOut, "the child hung until the watchdog stopped it; stderr: \(output)")
        }
        #endif
    }
}
