@_spi(TransportKit) import CRUDKitHTTP
import Foundation

/// The standard stage that lets identical reads in flight share one exchange with the server; a write, once
/// answered (or failed), lets no later read join a read of the paths it changes (that read may have been answered
/// before the write).
///
/// `GET` and `HEAD` requests share when they match as they are sent: same URL, same header fields (so
/// `Authorization`, `Accept` and `Accept-Language` included), same idle timeout (not the deadline: each caller keeps
/// its own), and no body or progress observer.
/// The key is taken from what is actually sent: when a middleware of your own sits between this stage and the
/// transport (anything but a standard stage, such as a request-signing middleware that reads per-caller credentials
/// from a task-local), the sharing happens after it, just before the transport, on the request it made; otherwise
/// here. Every caller gets the same response to decode on its own. Each caller waits with its own deadline and its
/// own cancellation: a caller who joins late is not held to the first caller's deadline, cancelling one caller (or
/// its deadline passing) never ends the others' wait, and the shared request, sent without a deadline of its own,
/// is cancelled once none of its callers waits for it. Only requests whose body goes to memory without a handle
/// take part.
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
    ///
    /// When a middleware of the user's own sits between this stage and the transport, the request it sends may not
    /// be the one this stage sees (a signing middleware reading per-caller credentials from a task-local, say):
    /// then reads are shared just before the transport instead, keyed on what is actually sent.
    static func run(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareChain.Next,
        coalescer: RequestCoalescer
    ) async throws -> HTTPResponse {
        if request.method.isRead {
            if case .chain(let chain, let index) = next, chain.hasCustomStep(from: index) {
                let sharing = chain.appending(.custom(SharedExchange(coalescer: coalescer)))
                return try await sharing.run(request, context, at: index)
            }
            return try await share(request, context, next, coalescer: coalescer)
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

    /// Sends the read `request` through `next`, or waits for an identical one in flight.
    ///
    /// The shared exchange is sent without a deadline: each caller waits with its own (``HTTPRequest/deadline``,
    /// counted from here, as the transport would count it) and its own cancellation, and the exchange is cancelled
    /// once no caller waits for it.
    static func share(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareChain.Next,
        coalescer: RequestCoalescer
    ) async throws -> HTTPResponse {
        guard case .memory(let observer) = context.transfer, observer.upload == nil, observer.download == nil,
            let key = RequestCoalescer.Key(request)
        else { return try await next(request, context) }
        let shared = {
            var shared = request
            shared.deadline = nil
            return shared
        }()
        var response: HTTPResponse
        do {
            response = try await coalescer.response(for: key, deadline: request.deadline) {
                try await next(shared, context)
            }
        } catch {
            throw Task.isCancelled ? CRUDError.cancelled : error
        }
        response.sentCredentials = SentCredentials(of: request, redaction: context.api.configuration.redaction)
        return response
    }
}

/// The coalescing stage moved next to the transport, behind the user's own middleware: reads are shared there,
/// keyed on the request as it is sent.
private struct SharedExchange: Middleware {
    let coalescer: RequestCoalescer

    var name: MiddlewareName { .coalescing }

    func intercept(
        _ request: HTTPRequest, context: MiddlewareContext, next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        try await CoalescingMiddleware.share(request, context, .closure(next), coalescer: coalescer)
    }
}
