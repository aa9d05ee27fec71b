import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// Runs every ``TransportContract`` check against ``URLSessionTransport``.
    @Suite struct URLSessionContractTests {
        static let contract = TransportContract { settings in
            URLSessionTransport(
                configuration: .init(
                    idleTimeout: settings.idleTimeout,
                    maximumResponseSize: settings.maximumResponseSize))
        }

        @Test(.timeLimit(.minutes(TestEnvironment.minutes(1))), arguments: contract.checks)
        func urlSessionTransportPasses(check: TransportContract.Check) async throws {
            // FoundationNetworking aborts the process on these; HeaderCloseTests runs that case in a child process.
            if check.abortsProcess.contains("URLSessionTransport") { return }
            if let reason = check.knownLimitations["URLSessionTransport"] {
                await withKnownIssue(Comment(rawValue: reason)) { try await check.run() }
            } else {
                try await check.run()
            }
        }
    }
}
