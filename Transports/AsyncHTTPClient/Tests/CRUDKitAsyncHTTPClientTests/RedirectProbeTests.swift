import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Testing

/// Runs every ``RedirectProbes`` probe (redirects end to end through an `API`) against ``AsyncHTTPClientTransport``;
/// the root suite's `URLSessionRedirectProbeTests` run the same probes on `URLSessionTransport`.
@Suite struct RedirectProbeTests {
    static let probes = RedirectProbes { settings in
        AsyncHTTPClientTransport(
            configuration: .init(
                idleTimeout: settings.idleTimeout,
                maximumResponseSize: settings.maximumResponseSize))
    }

    @Test(.timeLimit(.minutes(1)), arguments: probes.checks)
    func asyncHTTPClientTransportPasses(check: TransportContract.Check) async throws {
        if let reason = check.knownLimitations["AsyncHTTPClientTransport"] {
            await withKnownIssue(Comment(rawValue: reason)) { try await check.run() }
        } else {
            try await check.run()
        }
    }
}
