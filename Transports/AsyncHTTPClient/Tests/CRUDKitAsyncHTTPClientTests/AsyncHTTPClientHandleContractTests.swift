import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Testing

/// Runs the ``TransportContract`` request-handle checks against ``AsyncHTTPClientTransport``.
@Suite struct AsyncHTTPClientHandleContractTests {
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [
            AsyncHTTPClientContractTests.contract.handlePauseResume,
            AsyncHTTPClientContractTests.contract.handleRestart,
            AsyncHTTPClientContractTests.contract.handleWriteNotPausable,
            AsyncHTTPClientContractTests.contract.handleCancel,
        ])
    func asyncHTTPClientTransportPasses(check: TransportContract.Check) async throws {
        try await check.run()
    }
}
