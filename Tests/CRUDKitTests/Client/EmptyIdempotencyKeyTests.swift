import CRUDKit
import Foundation
import Testing

/// An `Idempotency-Key` header with no value (an empty string, or blanks) is no key: the server cannot recognise
/// a second copy by it (`InMemoryBackend` ignores it too), so the write may not be repeated.
@Suite struct EmptyIdempotencyKeyTests {
    @Test(arguments: ["", "  "])
    func aRetryPolicyDoesNotRepeatAWriteWithABlankKey(key: String) {
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://example.com/people")!, headers: ["Idempotency-Key": key])
        let decision = RetryPolicy.standard.decision(
            for: request, failedWith: .httpStatus(HTTPResponse(status: 503)), attempt: 1, elapsed: .zero, now: Date())
        guard case .doNotRetry = decision else {
            Issue.record("a POST with the key \"\(key)\" would be retried: \(decision)")
            return
        }
    }

    @Test func aRetryPolicyRepeatsAWriteWithAKey() {
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://example.com/people")!, headers: ["Idempotency-Key": "k-1"])
        let decision = RetryPolicy.standard.decision(
            for: request, failedWith: .httpStatus(HTTPResponse(status: 503)), attempt: 1, elapsed: .zero, now: Date())
        guard case .retry = decision else {
            Issue.record("a keyed POST would not be retried: \(decision)")
            return
        }
    }
}
