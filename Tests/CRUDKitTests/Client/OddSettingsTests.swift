import Foundation
import Testing

@testable import CRUDKit
@testable import CRUDKitHTTP

/// A caller's odd settings never trap (red-team findings): a retry multiplier or jitter that is not a number, a
/// huge delay, an infinite or not-a-number idle timeout handed to FoundationNetworking.
@Suite struct OddSettingsTests {
    @Test(arguments: [Double.nan, -2, .infinity, -.infinity])
    func aBackoffWithAnOddMultiplierStaysWithinItsBounds(multiplier: Double) {
        let policy = RetryPolicy(initialDelay: .milliseconds(250), multiplier: multiplier, maxDelay: .seconds(30))
        for attempt in 1...5 {
            let wait = policy.backoff(afterAttempt: attempt)
            #expect(wait >= .zero && wait <= .seconds(30), "\(multiplier) attempt \(attempt): \(wait)")
        }
    }

    @Test func aHugeDelayIsCappedNotTrapped() {
        let policy = RetryPolicy(
            initialDelay: .seconds(Int64.max / 2), multiplier: 1e300, maxDelay: .seconds(Int64.max))
        #expect(policy.backoff(afterAttempt: 3) > .seconds(1_000_000))
    }

    @Test func aJitterThatIsNotANumberIsNone() throws {
        var policy = RetryPolicy(maxAttempts: 3, initialDelay: .seconds(1), jitter: 0, maxTotalTime: nil)
        policy.jitter = .nan
        let request = HTTPRequest(url: URL(string: "https://example.com/x")!)
        let failure = CRUDError.httpStatus(HTTPResponse(status: 503))
        let decision = policy.decision(for: request, failedWith: failure, attempt: 1, elapsed: .zero, now: Date())
        #expect(decision.delay == .seconds(1))
    }

    @Test(arguments: [TimeInterval.infinity, .nan, -.infinity, 1e300])
    func anOddIdleTimeoutReachesURLSessionFinite(seconds: TimeInterval) {
        let given = URLSessionTransport.urlSessionTimeout(seconds)
        #expect(given.isFinite && given > 0 && given <= 86_400 * 365, "\(seconds) → \(given)")
    }
}
