import Foundation

extension StandardMiddleware {
    /// The ``coalescing`` stage: a read joins an identical read in flight; a write, once answered (or failed), lets
    /// no later read join a read of the paths it changes (that read may have been answered before the write).
    ///
    /// Only requests whose body goes to memory without a handle take part; a caller watching progress gets its own
    /// exchange (progress is reported to one observer only).
    static func coalesce(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareChain.Next
    ) async throws
        -> HTTPResponse
    {
        let api = context.api
        guard api.configuration.coalescesReads else { return try await next(request, context) }
        if request.method.isRead {
            guard case .memory(let observer) = context.transfer, observer.upload == nil, observer.download == nil,
                let key = RequestCoalescer.Key(request)
            else { return try await next(request, context) }
            var response: HTTPResponse
            do {
                response = try await api.coalescer.response(for: key) { try await next(request, context) }
            } catch {
                throw Task.isCancelled ? CRUDError.cancelled : error
            }
            response.sentCredentials = SentCredentials(of: request, redaction: api.configuration.redaction)
            return response
        }
        if case .file = context.transfer { return try await next(request, context) }
        defer {
            if let path = ResponseCache.path(of: request.url) {
                let stale = Set([path] + (ResponseCache.parent(of: path).map { [$0] } ?? []))
                api.coalescer.detach { key in
                    URL(string: key.url).flatMap(ResponseCache.path(of:)).map(stale.contains) ?? false
                }
            }
        }
        return try await next(request, context)
    }
}
