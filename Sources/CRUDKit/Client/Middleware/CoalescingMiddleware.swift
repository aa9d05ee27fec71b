@_spi(TransportKit) import CRUDKitHTTP
import Foundation

/// The standard stage that lets identical reads in flight share one exchange; a write, once answered (or failed),
/// lets no later read join a read of the paths it changes (that read may have been answered before the write).
///
/// `GET` and `HEAD` requests share when they match as they are sent: same URL, same header fields (so
/// `Authorization`, `Accept` and `Accept-Language` included), same idle timeout (not the deadline: each caller keeps
/// its own), and no body or progress observer.
/// The key is taken from what is actually sent: the stage marks the read, and the sharing happens just before the
/// transport, on the request the middlewares inside this stage made (a request-signing middleware that reads
/// per-caller credentials from a task-local never lets one caller's answer reach another). Every caller gets the
/// same response to decode on its own. Each caller waits with its own deadline and its own cancellation: a caller
/// who joins late is not held to the first caller's deadline, cancelling one caller (or its deadline passing) never
/// ends the others' wait, and the shared request, sent without a deadline of its own, is cancelled once none of its
/// callers waits for it. Only requests whose body goes to memory without a handle take part.
///
/// The reads in flight are kept by the ``API`` whose ``APIConfiguration/middleware`` holds the stage: two APIs never
/// share an exchange, even when made from the same configuration (a second coalescing stage inside the first has
/// nothing to add and passes requests on). In the default (`.standard`) list; remove it with
/// `removeAll(named: .coalescing)`. In a request's own ``Request/middleware`` it has no other caller to share with
/// and passes the request on.
public struct CoalescingMiddleware: Middleware {
    /// Creates the stage.
    public init() {}

    /// ``MiddlewareName/coalescing``.
    public var name: MiddlewareName { .coalescing }

    /// Marks a read to be shared with identical reads in flight through the API, just before the transport; after
    /// a write, lets no later read join a read of the paths it changed. In a request's own list, or inside another
    /// coalescing stage, sends `request` on through `next`.
    public func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        guard !context.call.inRequestsOwnList, !context.sharesAtTransport else {
            return try await next(request, context)
        }
        if request.method.isRead {
            var context = context
            context.sharesAtTransport = true
            return try await next(request, context)
        }
        if case .file = context.transfer { return try await next(request, context) }
        defer {
            if let path = ResponseCache.path(of: request.url) {
                let stale = Set([path] + (ResponseCache.parent(of: path).map { [$0] } ?? []))
                context.api.coalescer.detach { key in
                    URL(string: key.url).flatMap(ResponseCache.path(of:)).map(stale.contains) ?? false
                }
            }
        }
        return try await next(request, context)
    }

    /// Sends the read `request` through `send` (the transport), or waits for an identical one in flight, through the
    /// API's table of reads in flight.
    ///
    /// The shared exchange is sent without a deadline: each caller waits with its own (``HTTPRequest/deadline``,
    /// counted from here, as the transport would count it) and its own cancellation, and the exchange is cancelled
    /// once no caller waits for it.
    static func share(
        _ request: HTTPRequest, _ context: MiddlewareContext, send: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        guard case .memory(let observer) = context.transfer, observer.upload == nil, observer.download == nil,
            let key = RequestCoalescer.Key(request, ignoring: context.propagationHeaderNames)
        else { return try await send(request, context) }
        let shared = {
            var shared = request
            shared.deadline = nil
            return shared
        }()
        // The response keeps the credentials the exchange sent (the jar's cookies the chain's end added, each hop's):
        // the request it shares is this one but for the deadline and the context fields the key leaves out.
        do {
            return try await context.api.coalescer.response(for: key, deadline: request.deadline) {
                try await send(shared, context)
            }
        } catch {
            throw Task.isCancelled ? CRUDError.cancelled : error
        }
    }
}
