/// An ``Interceptor`` made of closures, for the cases that need no type of their own.
///
/// Write one with the static factories, directly in an API's list:
///
/// ```swift
/// let api = API(baseURL: base, interceptors: [
///     .adapt { request in
///         var request = request
///         request.headers["Authorization"] = "Bearer \(await session.token)"
///         return request
///     },
///     .validate { response in
///         if let message = try? JSONDecoder().decode(ServerError.self, from: response.body).error {
///             throw CRUDError.validation(message: message, response: response)
///         }
///     },
///     .decide { error in
///         if error.status == 401 { await session.end() }
///         return .proceed
///     },
/// ])
/// ```
public struct ClosureInterceptor: Interceptor {
    private let adaptRequest: (@Sendable (HTTPRequest, InterceptorContext) async throws -> HTTPRequest)?
    private let validateResponse: (@Sendable (HTTPResponse, HTTPRequest, InterceptorContext) throws -> Void)?
    private let decideOnFailure: (@Sendable (CRUDError, HTTPRequest, InterceptorContext) async -> FailureDecision)?
    private let retryRequest: (@Sendable (HTTPRequest, CRUDError, InterceptorContext) async -> RetryDecision)?

    /// Creates an interceptor from any of the four steps; a missing one does what ``Interceptor``'s default does.
    public init(
        adapt: (@Sendable (HTTPRequest, InterceptorContext) async throws -> HTTPRequest)? = nil,
        validate: (@Sendable (HTTPResponse, HTTPRequest, InterceptorContext) throws -> Void)? = nil,
        decide: (@Sendable (CRUDError, HTTPRequest, InterceptorContext) async -> FailureDecision)? = nil,
        retry: (@Sendable (HTTPRequest, CRUDError, InterceptorContext) async -> RetryDecision)? = nil
    ) {
        adaptRequest = adapt
        validateResponse = validate
        decideOnFailure = decide
        retryRequest = retry
    }

    /// Runs the adapt closure, if any.
    public func adapt(_ request: HTTPRequest, context: InterceptorContext) async throws -> HTTPRequest {
        guard let adaptRequest else { return request }
        return try await adaptRequest(request, context)
    }

    /// Runs the validate closure, if any.
    public func validate(_ response: HTTPResponse, for request: HTTPRequest, context: InterceptorContext) throws {
        try validateResponse?(response, request, context)
    }

    /// Runs the decide closure, if any.
    public func decide(
        on error: CRUDError, for request: HTTPRequest, context: InterceptorContext
    ) async
        -> FailureDecision
    {
        guard let decideOnFailure else { return .proceed }
        return await decideOnFailure(error, request, context)
    }

    /// Runs the retry closure, if any.
    public func retry(
        _ request: HTTPRequest, failedWith error: CRUDError, context: InterceptorContext
    ) async
        -> RetryDecision
    {
        guard let retryRequest else { return .doNotRetry }
        return await retryRequest(request, error, context)
    }
}

extension Interceptor where Self == ClosureInterceptor {
    /// An interceptor that adapts each request before it is sent (Netto's default-request action).
    public static func adapt(_ body: @escaping @Sendable (HTTPRequest) async throws -> HTTPRequest) -> Self {
        ClosureInterceptor(adapt: { request, _ in try await body(request) })
    }

    /// An interceptor that checks each response; throw to make it a failure.
    public static func validate(_ body: @escaping @Sendable (HTTPResponse) throws -> Void) -> Self {
        ClosureInterceptor(validate: { response, _, _ in try body(response) })
    }

    /// An interceptor that decides whether a failure may be retried (StreemNetworking's `shouldContinue`).
    public static func decide(_ body: @escaping @Sendable (CRUDError) async -> FailureDecision) -> Self {
        ClosureInterceptor(decide: { error, _, _ in await body(error) })
    }

    /// An interceptor that decides whether a failed request is sent again.
    public static func retry(
        _ body: @escaping @Sendable (HTTPRequest, CRUDError, InterceptorContext) async -> RetryDecision
    ) -> Self {
        ClosureInterceptor(retry: body)
    }
}
