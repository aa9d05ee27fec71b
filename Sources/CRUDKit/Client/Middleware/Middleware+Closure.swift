@_spi(TransportKit) import CRUDKitCore

/// A ``Middleware`` made of a closure, for the cases that need no type of their own.
///
/// ```swift
/// let api = API(baseURL: base).with {
///     $0.middleware.insert(.intercept("trace") { request, context, next in
///         var request = request
///         request.headers["X-Trace"] = UUID().uuidString
///         return try await next(request, context)
///     }, after: .retry)
/// }
/// ```
public struct ClosureMiddleware: Middleware {
    /// The name given when it was made.
    public let name: MiddlewareName
    private let body: @Sendable (HTTPRequest, MiddlewareContext, @escaping MiddlewareNext) async throws -> HTTPResponse

    /// Creates a middleware named `name` that runs `body`.
    package init(
        _ name: MiddlewareName,
        _ body:
            @escaping @Sendable (HTTPRequest, MiddlewareContext, @escaping MiddlewareNext) async throws
            -> HTTPResponse
    ) {
        self.name = name
        self.body = body
    }

    /// Runs the closure.
    public func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        try await body(request, context, next)
    }
}

extension Middleware where Self == ClosureMiddleware {
    /// A middleware named `name` that runs `body` around the rest of the chain.
    public static func intercept(
        _ name: MiddlewareName,
        _ body:
            @escaping @Sendable (HTTPRequest, MiddlewareContext, @escaping MiddlewareNext) async throws
            -> HTTPResponse
    ) -> Self {
        ClosureMiddleware(name, body)
    }

    /// A middleware named `name` that changes each request before the rest of the chain sees it (after
    /// ``MiddlewareName/retry``: before every attempt, from the request the retry stage received).
    ///
    /// An error `body` throws stops the request: a ``CRUDError`` as it is, any other as
    /// ``CRUDError/invalidRequest(reason:)``. The changed request is checked like a built one (a header value with a
    /// line break, a URL changed into something unsendable, fail with ``CRUDError/invalidRequest(reason:)``).
    ///
    /// ```swift
    /// let api = API(baseURL: base).with {
    ///     $0.middleware.insert(.adapt { request in
    ///         var request = request
    ///         request.headers["Authorization"] = "Bearer \(await session.token)"
    ///         return request
    ///     }, after: .retry)
    /// }
    /// ```
    public static func adapt(
        _ name: MiddlewareName = "adapt",
        _ body: @escaping @Sendable (HTTPRequest) async throws -> HTTPRequest
    ) -> Self {
        ClosureMiddleware(name) { request, context, next in
            var adapted: HTTPRequest
            do {
                adapted = try await body(request)
            } catch {
                throw CRUDError.fromAdapter(error)
            }
            RetryMiddleware.markSecretNames(&adapted, context.api.configuration.redaction)
            // The URL is parsed again only when it changed (parsing costs about a microsecond).
            if adapted.url != request.url || adapted.method != request.method {
                try adapted.validate()
            } else {
                try adapted.validateHeaders()
            }
            return try await next(adapted, context)
        }
    }

    /// A middleware named `name` that checks each response the rest of the chain returns; throw to make it a
    /// failure (some APIs answer `200 {"error": …}`).
    ///
    /// Place it after (inside) ``MiddlewareName/validation`` to see every response, a failed status included,
    /// before the status check. A ``CRUDError`` it throws is passed on as it is; any other error becomes
    /// ``CRUDError/validation(message:response:)``.
    ///
    /// ```swift
    /// let api = API(baseURL: base).with {
    ///     $0.middleware.insert(.validate { response in
    ///         if let message = (try? JSON(data: response.body))?["error"].string {
    ///             throw CRUDError.validation(message: message, response: response)
    ///         }
    ///     }, after: .validation)
    /// }
    /// ```
    public static func validate(
        _ name: MiddlewareName = "validate",
        _ body: @escaping @Sendable (HTTPResponse) throws -> Void
    ) -> Self {
        ClosureMiddleware(name) { request, context, next in
            let response = try await next(request, context)
            do {
                try body(response)
            } catch {
                throw CRUDError.fromValidator(error, response: response)
            }
            return response
        }
    }

    /// A middleware named `name` that changes or replaces each response the rest of the chain returns.
    public static func transform(
        _ name: MiddlewareName,
        _ body: @escaping @Sendable (HTTPResponse) async throws -> HTTPResponse
    ) -> Self {
        ClosureMiddleware(name) { request, context, next in try await body(next(request, context)) }
    }
}
