import Foundation

/// One of the stages every ``API`` runs by default, as a ``Middleware`` that can be moved or removed.
///
/// ``APIConfiguration/middleware`` starts as ``defaults``, outermost first:
///
/// | stage | what it does | settings it reads |
/// |---|---|---|
/// | ``idempotencyKeys`` | gives a `POST` an `Idempotency-Key` (the same on every attempt) | ``APIConfiguration/addsIdempotencyKeys`` |
/// | ``retry`` | runs the attempts: the retry policy (its `decide` closure first) after a failure, the wait between | ``APIConfiguration/retryPolicy``, ``Request/retryPolicy`` |
/// | ``logging`` | logs each attempt sent, answered and failed (the retry stage logs the retries) | ``APIConfiguration/logHandler`` |
/// | ``validation`` | the status check: anything but 2xx fails | — |
/// | ``coalescing`` | identical reads in flight share one exchange; a write stops later reads joining them | ``APIConfiguration/coalescesReads`` |
/// | ``cache`` | revalidating response cache; a write invalidates what it changes | ``APIConfiguration/cache`` |
///
/// The transport is the end of the chain. A stage whose setting is off passes the request on untouched (and is
/// skipped when the API is made).
public struct StandardMiddleware: Middleware {
    /// Which stage this is.
    package enum Stage: Sendable {
        case idempotencyKeys, retry, logging, validation, coalescing, cache
    }

    package let stage: Stage

    private init(_ stage: Stage) {
        self.stage = stage
    }

    /// Gives each `POST` without one an `Idempotency-Key` header with a new UUID, when
    /// ``APIConfiguration/addsIdempotencyKeys`` is on. Outside ``retry``, so every attempt sends the same key.
    public static let idempotencyKeys = StandardMiddleware(.idempotencyKeys)
    /// Sends the request once or more (each attempt from the request this stage received): after a failed one the
    /// retry policy decides, its ``RetryPolicy/decide`` closure first; waits between
    /// attempts on the API's clock, at most `API.attemptLimit` (32) attempts.
    public static let retry = StandardMiddleware(.retry)
    /// Logs, through ``APIConfiguration/logHandler``, each attempt sent, answered (before validation) and failed.
    public static let logging = StandardMiddleware(.logging)
    /// Fails any status but 2xx with
    /// ``CRUDError/httpStatus(_:)`` (412: ``CRUDError/conflict(_:)``).
    public static let validation = StandardMiddleware(.validation)
    /// Lets identical reads in flight share one exchange (``APIConfiguration/coalescesReads``).
    public static let coalescing = StandardMiddleware(.coalescing)
    /// Serves and revalidates `GET` responses from ``APIConfiguration/cache``, and invalidates them after writes.
    public static let cache = StandardMiddleware(.cache)

    /// The standard chain, outermost first: idempotency keys, retry, logging, validation, coalescing, cache.
    public static let defaults: [any Middleware] = [
        idempotencyKeys, retry, logging, validation, coalescing, cache,
    ]

    /// The stage's fixed name (``MiddlewareName/retry``, …).
    public var name: MiddlewareName {
        switch stage {
        case .idempotencyKeys: .idempotencyKeys
        case .retry: .retry
        case .logging: .logging
        case .validation: .validation
        case .coalescing: .coalescing
        case .cache: .cache
        }
    }

    /// Does this stage's part around `next`.
    public func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        try await run(request, context, .closure(next))
    }

    /// Does this stage's part around `next`.
    @inline(__always)
    package func run(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareChain.Next
    ) async throws
        -> HTTPResponse
    {
        switch stage {
        case .idempotencyKeys: try await Self.addIdempotencyKey(request, context, next)
        case .retry: try await Self.retry(request, context, next)
        case .logging: try await Self.log(request, context, next)
        case .validation: try await Self.validate(request, context, next)
        case .coalescing: try await Self.coalesce(request, context, next)
        case .cache: try await Self.cache(request, context, next)
        }
    }

    /// Whether the stage does anything with `configuration` (a stage that does not is left out of the chain).
    package func isActive(in configuration: APIConfiguration) -> Bool {
        switch stage {
        case .idempotencyKeys: configuration.addsIdempotencyKeys
        case .retry, .validation: true
        case .logging: configuration.logHandler != nil
        case .coalescing: configuration.coalescesReads
        case .cache: configuration.cache != nil
        }
    }

    private static func addIdempotencyKey(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareChain.Next
    ) async throws
        -> HTTPResponse
    {
        guard let keyed = context.api.keyed(request) else { return try await next(request, context) }
        var context = context
        context.call = context.call.starting(from: keyed)  // what each attempt starts from carries the key
        return try await next(keyed, context)
    }
}
