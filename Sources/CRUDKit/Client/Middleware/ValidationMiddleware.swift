/// The standard stage that checks the status: any status but 2xx fails with ``CRUDError/httpStatus(_:)``
/// (412: ``CRUDError/conflict(_:)``).
///
/// In the default (`.standard`) list, inside ``RetryMiddleware`` (a failed status is a failed attempt). A
/// `.validate { }` middleware placed after it sees every response first, a failed status included.
public struct ValidationMiddleware: Middleware {
    /// Creates the stage.
    public init() {}

    /// ``MiddlewareName/validation``.
    public var name: MiddlewareName { .validation }

    /// Sends `request` on through `next` and fails a response whose status is not 2xx.
    public func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        let response = try await next(request, context)
        guard response.isSuccess else { throw CRUDError.fromStatus(response) }
        return response
    }
}
