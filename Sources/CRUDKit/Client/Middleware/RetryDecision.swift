/// What a ``RetryPolicy`` (or its ``RetryPolicy/decide`` closure) decides about a failed request.
public enum RetryDecision: Sendable {
    /// Send the request again after waiting this long (`.zero`: at once).
    case retry(after: Duration)
    /// No, or (from a ``RetryPolicy/decide`` closure) no opinion: the policy's own rules decide; if they do not
    /// retry, the request fails.
    case doNotRetry
    /// Fail now with this error, without asking anyone else.
    case fail(CRUDError)

    /// The wait before the next attempt, for a ``retry(after:)`` decision.
    public var delay: Duration? {
        if case .retry(let delay) = self { return delay }
        return nil
    }
}
