import CRUDKit
@_spi(TransportKit) import CRUDKitCore
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport-neutral reason of a ``CRUDError/transport(_:)`` and the retry decision taken by it.
@Suite struct TransportFailureTests {
    @Test(arguments: [
        (URLError.Code.cannotConnectToHost, TransportFailure.Reason.cannotConnect),
        (.notConnectedToInternet, .cannotConnect),
        (.cannotFindHost, .hostNotFound),
        (.dnsLookupFailed, .hostNotFound),
        (.networkConnectionLost, .connectionLost),
        (.secureConnectionFailed, .tls),
        (.serverCertificateUntrusted, .tls),
        (.badServerResponse, .protocolViolation),
        (.cannotParseResponse, .protocolViolation),
        (.unknown, .other),
    ])
    func aURLErrorGetsItsReason(code: URLError.Code, reason: TransportFailure.Reason) {
        guard case .transport(let failure) = CRUDError.transport(underlying: URLError(code)) else {
            Issue.record("not a transport error")
            return
        }
        #expect(failure.reason == reason)
        #expect((failure.underlying as? URLError)?.code == code)
    }

    @Test func posixAndOtherErrorsGetTheirReason() {
        #expect(TransportFailure(underlying: POSIXError(.ECONNREFUSED)).reason == .cannotConnect)
        #expect(TransportFailure(underlying: POSIXError(.ECONNRESET)).reason == .connectionLost)
        struct Custom: Error {}
        #expect(TransportFailure(underlying: Custom()).reason == .other)
        #expect(TransportFailure(.tls, underlying: Custom()).reason == .tls)
    }

    @Test func theReasonNamesItself() {
        #expect(TransportFailure.Reason.cannotConnect.description == "cannot connect")
        #expect(TransportFailure.Reason.protocolViolation != .connectionLost)
        let failure = TransportFailure(.connectionLost, underlying: URLError(.networkConnectionLost))
        #expect(failure.description.hasPrefix("connection lost: "))
    }

    /// Whether `policy` retries a request with `method` that failed with `reason`.
    private func retries(_ reason: TransportFailure.Reason, method: HTTPMethod = .get) -> Bool {
        let policy = RetryPolicy(maxAttempts: 3, jitter: 0, maxTotalTime: nil)
        let request = HTTPRequest(method: method, url: URL(fileURLWithPath: "/x"))
        let error = CRUDError.transport(TransportFailure(reason, underlying: URLError(.unknown)))
        return policy.decision(for: request, failedWith: error, attempt: 1, elapsed: .zero, now: Date()).delay != nil
    }

    @Test func aProtocolViolationOrATLSFailureIsNotRetried() {
        #expect(!retries(.protocolViolation))
        #expect(!retries(.tls))
    }

    @Test func aLostOrRefusedConnectionOnARepeatableRequestIsRetried() {
        #expect(retries(.connectionLost))
        #expect(retries(.cannotConnect))
        #expect(retries(.hostNotFound))
        #expect(retries(.other))
        #expect(!retries(.connectionLost, method: .post))
    }

    /// A request that never left (no connection, no host) is retried whatever its method: nothing reached the server.
    @Test func aRequestThatNeverLeftIsRetriedWhateverItsMethod() {
        #expect(retries(.cannotConnect, method: .post))
        #expect(retries(.hostNotFound, method: .patch))
        #expect(!retries(.other, method: .post))
        #expect(!retries(.protocolViolation, method: .post))
    }
}
