import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// Runs the ``TransportContract`` request-handle checks against ``URLSessionTransport``.
@Suite struct URLSessionHandleContractTests {
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [
            URLSessionContractTests.contract.handlePauseResume, URLSessionContractTests.contract.handleRestart,
            URLSessionContractTests.contract.handleWriteNotPausable, URLSessionContractTests.contract.handleCancel,
        ])
    func urlSessionTransportPasses(check: TransportContract.Check) async throws {
        try await check.run()
    }
}
