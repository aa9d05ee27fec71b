import Foundation

/// The standard stage that gives each `POST` without one an `Idempotency-Key` header with a new UUID, which also
/// makes the request safe for a ``RetryPolicy`` to repeat.
///
/// Its standard place is outside ``RetryMiddleware``, so every attempt sends the same key (`insert(_:)` puts it
/// there). Not in the default (`.standard`) list: add it to send keys.
///
/// ```swift
/// let api = API(
///     baseURL: base,
///     middleware: .standard.inserting(RetryMiddleware(policy: .standard)).inserting(IdempotencyKeyMiddleware()))
/// ```
public struct IdempotencyKeyMiddleware: Middleware {
    /// Creates the stage.
    public init() {}

    /// ``MiddlewareName/idempotencyKeys``.
    public var name: MiddlewareName { .idempotencyKeys }

    /// Gives `request` a key when it is a `POST` without one, then sends it on through `next`.
    public func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        guard let keyed = Self.keyed(request) else { return try await next(request, context) }
        var context = context
        context.call = context.call.starting(from: keyed)  // what each attempt starts from carries the key
        return try await next(keyed, context)
    }

    /// `request` with a fresh `Idempotency-Key` when it is a `POST` and has none yet; `nil` when nothing is added.
    package static func keyed(_ request: HTTPRequest) -> HTTPRequest? {
        guard request.method == .post, !request.headers.contains("Idempotency-Key") else { return nil }
        var keyed = request
        keyed.headers["Idempotency-Key"] = UUID().uuidString
        return keyed
    }
}
