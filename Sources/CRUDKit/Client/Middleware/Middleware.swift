/// The rest of a middleware chain, handed to each ``Middleware``: call it to send a request on (through the
/// middlewares after this one, then the transport) and get its response.
public typealias MiddlewareNext = @Sendable (HTTPRequest, MiddlewareContext) async throws -> HTTPResponse

/// A step of an ``API``'s request pipeline: it sees the request on its way to the transport and the response (or
/// error) on its way back.
///
/// Every request goes through one chain of middlewares, outermost first, ending with the transport:
/// ``APIConfiguration/middleware`` (the standard stages, see `[any Middleware].standard`, plus any of your own), with the
/// request's own ``Request/middleware`` around them. The standard stages are middlewares like yours: the chain runs
/// each one, yours and theirs alike, through ``intercept(_:context:next:)``. A middleware may change the request
/// before calling `next`,
/// change or replace the response after it, throw, or call `next` more than once (to retry).
///
/// ```swift
/// struct Envelope: Middleware {
///     func intercept(
///         _ request: HTTPRequest, context: MiddlewareContext, next: MiddlewareNext
///     ) async throws -> HTTPResponse {
///         var response = try await next(request, context)
///         response.body = try JSON(data: response.body)["data"].data()
///         return response
///     }
/// }
/// let api = API(baseURL: base).with { $0.middleware.insert(Envelope(), after: .retry) }
/// ```
///
/// Errors should be ``CRUDError``s: any other error is reported to the caller as
/// `CRUDError/transport(underlying:)`.
public protocol Middleware: Sendable {
    /// The name that `insert(_:before:)`, `insert(_:after:)` and `removeAll(named:)` find this middleware by, and
    /// that places it (`insert(_:)` and the placement rules key on the standard stages' names, which no string
    /// equals); by default the type's name.
    var name: MiddlewareName { get }

    /// Sends `request` on through `next`, doing this middleware's part before and after.
    /// - Parameters:
    ///   - request: The request as the middlewares before this one left it.
    ///   - context: What the chain knows about the request (the API, the attempt, the retry policy, …); pass it on,
    ///     changed if needed.
    ///   - next: The rest of the chain; it may be called more than once, or not at all (to answer from elsewhere).
    /// - Returns: The response to hand back to the middlewares before this one.
    /// - Throws: A ``CRUDError``, to fail the request (or, inside a retrying middleware, this attempt).
    func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse

    /// Whether this middleware would only send `request` on unchanged, doing nothing before or after; the chain
    /// then sends the request straight on, without calling ``intercept(_:context:next:)``. Checked at each request,
    /// so it must be cheap and must not block; by default `false`.
    ///
    /// A middleware whose backend may be a no-op (a logger above every level, a no-op tracer) answers `true` for it,
    /// so that it costs a request next to nothing.
    /// - Parameters:
    ///   - request: The request as the middlewares before this one left it.
    ///   - context: What the chain knows about the request.
    func passesThrough(_ request: HTTPRequest, context: MiddlewareContext) -> Bool
}

extension Middleware {
    /// The type's name, such as `"Envelope"`.
    public var name: MiddlewareName { MiddlewareName(String(describing: Self.self)) }

    /// `false`: the middleware is called for every request.
    public func passesThrough(_ request: HTTPRequest, context: MiddlewareContext) -> Bool { false }
}

/// The name of a ``Middleware`` in a chain, by which a middleware is placed before or after another.
///
/// The standard stages have names of their own (``retry``, ``logging``, …), which CRUDKit makes and no string
/// equals: a middleware of yours named `"retry"` is not taken for the retry stage (it is neither placed as one nor
/// found by `insert(_:after: .retry)`). Any other middleware is named after its type unless it says otherwise; a
/// middleware that answers one of the standard names (`var name: MiddlewareName { .retry }`) is placed and found as
/// that stage.
public struct MiddlewareName: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name.
    public let rawValue: String
    /// Whether CRUDKit made this name for one of its stages (compared too, so no name made from a string equals it).
    private let isStandard: Bool

    /// Creates a name.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
        self.isStandard = false
    }

    /// Creates a name from a string literal.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The name of one of CRUDKit's own stages, which no name made from a string equals.
    package init(standard rawValue: String) {
        self.rawValue = rawValue
        self.isStandard = true
    }

    /// The name.
    public var description: String { rawValue }

    /// The name of ``IdempotencyKeyMiddleware``.
    public static let idempotencyKeys = MiddlewareName(standard: "idempotencyKeys")
    /// The name of ``RetryMiddleware``.
    public static let retry = MiddlewareName(standard: "retry")
    /// The name of ``LoggingMiddleware``.
    public static let logging = MiddlewareName(standard: "logging")
    /// The name of ``ValidationMiddleware``.
    public static let validation = MiddlewareName(standard: "validation")
    /// The name of ``CoalescingMiddleware``.
    public static let coalescing = MiddlewareName(standard: "coalescing")
    /// The name of ``CacheMiddleware``.
    public static let cache = MiddlewareName(standard: "cache")
}
