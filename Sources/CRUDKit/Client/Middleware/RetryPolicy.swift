import Foundation

/// When and how soon a failed request is sent again: exponential back-off with jitter, a cap on attempts and on
/// total time, and the server's `Retry-After`.
///
/// Only requests that are safe to repeat are retried: idempotent methods (`GET`, `HEAD`, `PUT`, `DELETE`, …),
/// any request carrying an `Idempotency-Key` header (see ``IdempotencyKeyMiddleware``), and any request
/// that never left (a transport failure with the reason ``TransportFailure/Reason/cannotConnect`` or
/// ``TransportFailure/Reason/hostNotFound``). A cancelled
/// request is never retried, and the wait between attempts ends as soon as the task is cancelled.
///
/// A ``decide`` closure is asked first, on every failure, whatever ``maxAttempts`` says (up to the API's limit of
/// 32 attempts): it can stop at once (``RetryDecision/fail(_:)``), retry (``RetryDecision/retry(after:)``), or leave
/// the decision to the rules above (``RetryDecision/doNotRetry``).
///
/// ```swift
/// let policy = RetryPolicy(maxAttempts: 4, initialDelay: .milliseconds(200), maxTotalTime: .seconds(10))
/// let api = API(baseURL: base, middleware: .standard.inserting(RetryMiddleware(policy: policy)))
/// let strict = RetryPolicy(maxAttempts: 1) { request, error, context in
///     if error.status == 403 { /* end the session here */ return .fail(error) }
///     return .doNotRetry
/// }
/// ```
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included; `1` never retries.
    public var maxAttempts: Int
    /// The wait before the second attempt.
    public var initialDelay: Duration
    /// How much longer each later wait is than the one before.
    public var multiplier: Double
    /// The longest back-off wait (a `Retry-After` may ask for longer, within ``maxTotalTime``).
    public var maxDelay: Duration
    /// The share of each back-off wait that is random, from 0 (none) to 1 (anything from zero to the full wait),
    /// so that clients that failed together do not retry together.
    public var jitter: Double
    /// No retry starts, or is waited for, past this time since the first attempt; `nil` for no limit.
    public var maxTotalTime: Duration?
    /// The statuses that are retried (by default 408, 429, 500, 502, 503 and 504).
    public var retryableStatuses: Set<Int>
    /// The statuses whose `Retry-After` header sets the wait (by default 429 and 503).
    public var retryAfterStatuses: Set<Int>
    /// Whether network failures (``CRUDError/transport(_:)``) are retried; a protocol violation or a TLS failure
    /// never is: the server's bytes were not HTTP, or its certificate is not trusted, and the next attempt gets the
    /// same.
    public var retriesTransportErrors: Bool
    /// Whether timeouts (``CRUDError/timedOut(_:)``) are retried.
    public var retriesTimeouts: Bool
    /// Where the jitter comes from (the system's random numbers; the library's tests seed it). Set ``jitter`` to 0
    /// for repeatable waits.
    package var random: RandomSource = .system
    /// Asked first about every failed attempt (the request sent, its error, the chain's context): its
    /// ``RetryDecision/fail(_:)`` fails at once with that error, its ``RetryDecision/retry(after:)`` retries, and its
    /// ``RetryDecision/doNotRetry`` leaves the decision to the rules above; `nil` for the rules alone.
    public var decide: (@Sendable (HTTPRequest, CRUDError, MiddlewareContext) async -> RetryDecision)?

    /// Creates a policy.
    /// - Parameters:
    ///   - maxAttempts: Attempts in all, the first included.
    ///   - initialDelay: The wait before the second attempt.
    ///   - multiplier: The growth of each later wait.
    ///   - maxDelay: The longest back-off wait.
    ///   - jitter: The random share of each wait, `0...1`.
    ///   - maxTotalTime: The time after which no retry starts.
    ///   - retryableStatuses: The statuses that are retried.
    ///   - retryAfterStatuses: The statuses whose `Retry-After` is honoured.
    ///   - retriesTransportErrors: Whether network failures are retried.
    ///   - retriesTimeouts: Whether timeouts are retried.
    ///   - decide: Asked first about every failure (see ``decide``).
    public init(
        maxAttempts: Int = 3,
        initialDelay: Duration = .milliseconds(250),
        multiplier: Double = 2,
        maxDelay: Duration = .seconds(30),
        jitter: Double = 0.5,
        maxTotalTime: Duration? = .seconds(60),
        retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryAfterStatuses: Set<Int> = [429, 503],
        retriesTransportErrors: Bool = true,
        retriesTimeouts: Bool = true,
        decide: (@Sendable (HTTPRequest, CRUDError, MiddlewareContext) async -> RetryDecision)? = nil
    ) {
        self.maxAttempts = maxAttempts
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.jitter = min(max(jitter, 0), 1)
        self.maxTotalTime = maxTotalTime
        self.retryableStatuses = retryableStatuses
        self.retryAfterStatuses = retryAfterStatuses
        self.retriesTransportErrors = retriesTransportErrors
        self.retriesTimeouts = retriesTimeouts
        self.decide = decide
    }

    /// Never retry.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// Up to 3 attempts, 250 ms then 500 ms (half of it random), within 60 seconds.
    public static let standard = RetryPolicy()

    /// Whether `request` may be sent twice: an idempotent method, or an `Idempotency-Key` header with a value (a
    /// blank one lets no server recognise the second copy).
    package static func isRepeatable(_ request: HTTPRequest) -> Bool {
        request.method.isIdempotent
            || request.headers.values(for: "Idempotency-Key").contains {
                !$0.trimmingCharacters(in: .whitespaces).isEmpty
            }
    }

    /// The back-off wait after the failure of attempt `attempt` (from 1), before jitter, capped at ``maxDelay``.
    /// A caller's odd settings never trap: a multiplier that is not a number or negative counts as 1, and the wait
    /// stays within 0 and ``maxDelay`` (itself at most `Int64.max` nanoseconds).
    package func backoff(afterAttempt attempt: Int) -> Duration {
        let growth = multiplier.isNaN || multiplier < 0 ? 1 : multiplier
        let factor = pow(growth, Double(max(attempt - 1, 0)))
        let cap = max(0, maxDelay.seconds)
        let first = initialDelay.seconds * factor
        let seconds = first.isNaN ? 0 : min(max(first, 0), cap)
        let nanoseconds = (seconds * 1e9).rounded()
        return nanoseconds < 9.2e18 ? .nanoseconds(Int64(nanoseconds)) : .nanoseconds(Int64.max)
    }

    /// The decision for a request whose attempt `attempt` failed with `error`.
    /// - Parameters:
    ///   - request: The request that was sent.
    ///   - error: How it failed.
    ///   - attempt: The attempt that failed, from 1.
    ///   - elapsed: The time since the first attempt started.
    ///   - now: The current date, for `Retry-After` dates.
    /// - Returns: ``RetryDecision/retry(after:)`` or ``RetryDecision/doNotRetry``.
    package func decision(
        for request: HTTPRequest,
        failedWith error: CRUDError,
        attempt: Int,
        elapsed: Duration,
        now: Date
    ) -> RetryDecision {
        guard attempt < maxAttempts, Self.isRepeatable(request) || Self.wasNotSent(error), isRetryable(error) else {
            return .doNotRetry
        }
        var delay: Duration
        if let response = error.response, retryAfterStatuses.contains(response.status),
            let header = response.headers["Retry-After"], let asked = RetryAfter.delay(header, now: now)
        {
            delay = asked
        } else {
            let full = backoff(afterAttempt: attempt)
            let share = jitter.isNaN ? 0 : min(max(jitter, 0), 1)
            delay = full - full * (share * random.nextUnit())
        }
        if delay < .zero { delay = .zero }
        if let maxTotalTime, elapsed + delay > maxTotalTime { return .doNotRetry }
        return .retry(after: delay)
    }

    /// Whether `error` says the request never left: no connection could be opened, or the host name was not found.
    /// Such a request is retried whatever its method.
    private static func wasNotSent(_ error: CRUDError) -> Bool {
        guard case .transport(let failure) = error else { return false }
        return failure.reason == .cannotConnect || failure.reason == .hostNotFound
    }

    private func isRetryable(_ error: CRUDError) -> Bool {
        switch error {
        case .transport(let failure): retriesTransportErrors && Self.isRetryable(failure.reason)
        case .timedOut: retriesTimeouts
        case .httpStatus(let response): retryableStatuses.contains(response.status)
        default: false
        }
    }

    /// Whether a network failure with `reason` is worth sending again: a refused or lost connection, a name not
    /// found, or an unclassified failure may go away; a ``TransportFailure/Reason/protocolViolation``
    /// (the server's bytes were not HTTP) or a ``TransportFailure/Reason/tls`` failure (an untrusted
    /// certificate) comes back the same, and a transport that was shut down
    /// (``TransportFailure/Reason/shutDown``) sends nothing more.
    private static func isRetryable(_ reason: TransportFailure.Reason) -> Bool {
        reason != .protocolViolation && reason != .tls && reason != .shutDown
    }
}
