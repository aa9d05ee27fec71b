import Foundation

/// What an ``Interceptor`` knows about the request in flight.
public struct InterceptorContext: Sendable {
    /// The API sending the request.
    public let api: API
    /// The attempt, from 1.
    public let attempt: Int
    /// The request as built, before any interceptor adapted it.
    public let originalRequest: HTTPRequest
    /// The failures of the earlier attempts, oldest first (not the one being decided on).
    public let previousFailures: [CRUDError]
    /// The time since the first attempt started, on the API's clock.
    public let elapsed: Duration

    /// Creates a context (for testing interceptors on their own).
    public init(
        api: API,
        attempt: Int,
        originalRequest: HTTPRequest,
        previousFailures: [CRUDError] = [],
        elapsed: Duration = .zero
    ) {
        self.api = api
        self.attempt = attempt
        self.originalRequest = originalRequest
        self.previousFailures = previousFailures
        self.elapsed = elapsed
    }
}
