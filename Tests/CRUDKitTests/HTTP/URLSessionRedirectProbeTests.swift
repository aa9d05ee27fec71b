import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// Runs every ``RedirectProbes`` probe (redirects end to end through an `API`) against ``URLSessionTransport``;
    /// the adapter's `RedirectProbeTests` run the same probes on `AsyncHTTPClientTransport`.
    @Suite struct URLSessionRedirectProbeTests {
        static let probes = RedirectProbes { settings in
            URLSessionTransport(
                configuration: .init(
                    idleTimeout: settings.idleTimeout,
                    maximumResponseSize: settings.maximumResponseSize))
        }

        @Test(.timeLimit(.minutes(TestEnvironment.minutes(1))), arguments: probes.checks)
        func urlSessionTransportPasses(check: TransportContract.Check) async throws {
            if let reason = check.knownLimitations["URLSessionTransport"] {
                await withKnownIssue(Comment(rawValue: reason)) { try await check.run() }
            } else {
                try await check.run()
            }
        }
    }
}
