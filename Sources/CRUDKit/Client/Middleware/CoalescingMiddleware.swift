@_spi(TransportKit) import CRUDKitHTTP
import Foundation

/// The standard stage that lets identical reads in flight share one exchange with the server; a write, once
/// answered (or failed), lets no later read join a read of the paths it changes (that read may have been answered
/// before the write).
///
/// `GET` and `HEAD` requests share when they match as the middleware before this stage left them: same URL, same
/// header fields (so `Authorization`, `Accept` and `Accept-Language` included), same timeouts, and no body or
/// progress observer. Every caller gets the same response to decode on its own; cancelling one caller never
/// cancels the others, and the shared request is cancelled once all of its callers are. Only requests whose body
/// goes to memory without a handle take part.
///
/// The reads in flight are kept by the ``API`` whose ``APIConfiguration/middleware`` holds the stage, one table per
/// stage: two APIs never share an exchange, even when made from the same configuration. In the
/// default (`.standard`) list; remove it with `removeAll(named: .coalescing)`. In a request's own
/// ``Request/middleware`` it has no other caller to share with and passes the request on.
public struct CoalescingMiddleware: StandardStage {
    /// Creates the stage.
    public init() {}

    /// ``MiddlewareName/coalescing``.
    public var name: MiddlewareName { .coalescing }

    /// Outside an API's own list there is nobody to share with: sends `request` on through `next`.
    public func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        try await next(request, context)
    }

    package func run(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareChain.Next
    )
        async throws -> HTTPResponse
    {
        try await next(request, context)
    }

    /// The stage at its place in an API's chain, sharing reads through `coalescer`, the table the API keeps for it.
    static func run(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareChain.Next,
        coalescer: RequestCoalescer
    ) async throws -> HTTPResponse {
        if request.method.isRead {
            guard case .memory(let observer) = context.transfer, observer.upload == nil, observer.download == nil,
                let key = RequestCoalescer.Key(request)
            else { return try await next(request, context) }
            var response: HTTPResponse
            do {
                response = try await coalescer.response(for: key) { try await next(request, context) }
            } catch {
                throw Task.isCancelled ? CRUDError.cancelled : error
            }
            response.sentCredentials = SentCredentials(of: request, redaction: context.api.configuration.redaction)
            return response
        }
        if case .file = context.transfer { return try await next(request, context) }
        defer {
            if let path = ResponseCache.path(of: request.url) {
                let stale = Set([path] + (ResponseCache.parent(of: path).map { [$0] } ?? []))
                coalescer.detach { key in
                    URL(string: key.url).flatMap(ResponseCache.path(of:)).map(stale.contains) ?? false
                }
            }
        }
        return try await next(request, context)
    }
}
