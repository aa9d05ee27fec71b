/// What an ``Interceptor`` or a ``RetryPolicy`` decides about a failed request.
public enum RetryDecision: Sendable {
    /// Send the request again after waiting this long (`.zero`: at once).
    case retry(after: Duration)
    /// No opinion, or no: the next interceptor, then the retry policy, decides; if none retries, the request fails.
    case doNotRetry
    /// Fail now with this error, without asking anyone else.
    case fail(CRUDError)

    /// Send the request again at once.
    public static let retryNow = RetryDecision.retry(after: .zero)

    /// The wait before the next attempt, for a ``retry(after:)`` decision.
    public var delay: Duration? {
        if case .retry(let delay) = self { return delay }
        return nil
    }
}
