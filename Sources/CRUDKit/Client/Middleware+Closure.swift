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
    public init(
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

    /// A middleware named `name` that changes each request before the rest of the chain sees it.
    public static func adapt(
        _ name: MiddlewareName,
        _ body: @escaping @Sendable (HTTPRequest) async throws -> HTTPRequest
    ) -> Self {
        ClosureMiddleware(name) { request, context, next in try await next(body(request), context) }
    }

    /// A middleware named `name` that changes or replaces each response the rest of the chain returns.
    public static func transform(
        _ name: MiddlewareName,
        _ body: @escaping @Sendable (HTTPResponse) async throws -> HTTPResponse
    ) -> Self {
        ClosureMiddleware(name) { request, context, next in try await body(next(request, context)) }
    }
}
