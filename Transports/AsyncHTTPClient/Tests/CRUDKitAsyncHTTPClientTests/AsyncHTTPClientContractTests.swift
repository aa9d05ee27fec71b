import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Testing

/// Runs every ``TransportContract`` check against ``AsyncHTTPClientTransport``.
@Suite struct AsyncHTTPClientContractTests {
    static let contract = TransportContract { settings in
        AsyncHTTPClientTransport(
            configuration: .init(
                idleTimeout: settings.idleTimeout,
                maximumResponseSize: settings.maximumResponseSize))
    }

    @Test(.timeLimit(.minutes(1)), arguments: contract.checks)
    func asyncHTTPClientTransportPasses(check: TransportContract.Check) async throws {
        // AsyncHTTPClient stops the process on these; StatusBelow100Tests runs that case in a child process.
        if check.abortsProcess.contains("AsyncHTTPClientTransport") { return }
        if let reason = check.knownLimitations["AsyncHTTPClientTransport"] {
            await withKnownIssue(Comment(rawValue: reason)) { try await check.run() }
        } else {
            try await check.run()
        }
    }
}
