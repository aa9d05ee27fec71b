/// A step every request of an ``API`` goes through: adapt the request, validate the response, decide on a
/// failure, and retry.
///
/// Implement only what you need; the other requirements do nothing by default. Interceptors run in the order
/// the API lists them, for every attempt: all `adapt`s before sending, all `validate`s on the response, and on a
/// failure, interceptor by interceptor, its `decide` and then its `retry`. The first `retry` that asks for another
/// attempt wins; when none does, the API's ``RetryPolicy`` decides.
///
/// A closure can be an interceptor too: ``ClosureInterceptor/adapt(_:)``, ``ClosureInterceptor/validate(_:)``,
/// ``ClosureInterceptor/decide(_:)``, ``ClosureInterceptor/retry(_:)``.
///
/// ```swift
/// struct APIKey: Interceptor {
///     let key: String
///     func adapt(_ request: HTTPRequest, context: InterceptorContext) async throws -> HTTPRequest {
///         var request = request
///         request.headers["X-API-Key"] = key
///         return request
///     }
/// }
/// ```
public protocol Interceptor: Sendable {
    /// Returns the request to send, changed as needed (a token read at send time, a signature).
    ///
    /// Called before every attempt, with the request as built (not as adapted for an earlier attempt).
    /// - Throws: Any error stops the request; a ``CRUDError`` is passed on as it is, other errors become
    ///   ``CRUDError/invalidRequest(reason:)``.
    func adapt(_ request: HTTPRequest, context: InterceptorContext) async throws -> HTTPRequest

    /// Checks a response before the status check and decoding; throw to turn it into a failure.
    ///
    /// Called for every response, successful or not, e.g. to turn `200 {"error": …}` into
    /// ``CRUDError/validation(message:response:)``.
    /// - Throws: A ``CRUDError``; any other error becomes ``CRUDError/validation(message:response:)``.
    func validate(_ response: HTTPResponse, for request: HTTPRequest, context: InterceptorContext) throws

    /// Decides whether a failure may go on to be retried (StreemNetworking's `shouldContinue`): return
    /// ``FailureDecision/stop`` to fail at once, after doing what the failure calls for (e.g. end the session on 401).
    func decide(on error: CRUDError, for request: HTTPRequest, context: InterceptorContext) async -> FailureDecision

    /// Decides whether a failed request is sent again, and when.
    func retry(_ request: HTTPRequest, failedWith error: CRUDError, context: InterceptorContext) async -> RetryDecision
}

extension Interceptor {
    /// Sends the request unchanged.
    public func adapt(_ request: HTTPRequest, context: InterceptorContext) async throws -> HTTPRequest { request }

    /// Accepts every response.
    public func validate(_ response: HTTPResponse, for request: HTTPRequest, context: InterceptorContext) throws {}

    /// Lets the failure go on.
    public func decide(
        on error: CRUDError, for request: HTTPRequest, context: InterceptorContext
    ) async
        -> FailureDecision
    { .proceed }

    /// Has no opinion: the next interceptor or the retry policy decides.
    public func retry(
        _ request: HTTPRequest, failedWith error: CRUDError, context: InterceptorContext
    ) async
        -> RetryDecision
    { .doNotRetry }
}
