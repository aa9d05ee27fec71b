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

    /// The ``cache`` stage: a `GET` is revalidated against the stored response and a 304 answered from it; a
    /// write, once answered (or failed), invalidates what it changes.
    ///
    /// Only requests whose body goes to memory take part (a handle's reads do not; its writes invalidate).
    static func cache(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareChain.Next
    ) async throws
        -> HTTPResponse
    {
        guard let cache = context.api.configuration.cache else { return try await next(request, context) }
        if request.method.isRead {
            guard case .memory = context.transfer else { return try await next(request, context) }
            var response = try await cache.response(for: request) { try await next($0, context) }
            response.sentCredentials = SentCredentials(of: request, redaction: context.api.configuration.redaction)
            return response
        }
        if case .file = context.transfer { return try await next(request, context) }
        let response: HTTPResponse
        do {
            response = try await next(request, context)
        } catch {
            cache.invalidate(afterWrite: request, response: nil)
            throw error
        }
        cache.invalidate(afterWrite: request, response: response)
        return response
    }

    /// The end of every chain: the transport sends the request (into memory, a file, or steered by a handle), its
    /// errors become ``CRUDError``s, and the response remembers the credentials sent (for descriptions).
    static func transfer(_ request: HTTPRequest, _ context: MiddlewareContext) async throws -> HTTPResponse {
        // The configuration's fields are read one by one: a copy of all of it costs a retain per field.
        let api = context.api
        var response: HTTPResponse
        do {
            switch context.transfer {
            case .memory(let observer):
                response = try await api.configuration.transport.send(request, observer: observer)
            case .handle(let control, let observer):
                response = try await control.exchange(
                    request, observer: observer, transport: api.configuration.transport)
            case .file(let destination, let observer):
                response = try await api.configuration.transport.download(request, to: destination, observer: observer)
            }
        } catch {
            throw Task.isCancelled ? CRUDError.cancelled : CRUDError.fromTransport(error, timeout: request.timeout ?? 0)
        }
        response.sentCredentials = SentCredentials(of: request, redaction: api.configuration.redaction)
        return response
    }
}

extension HTTPMethod {
    /// Whether the method only reads (`GET`, `HEAD`, `OPTIONS`, `TRACE`): it changes nothing a cache holds.
    var isRead: Bool {
        self == .get || self == .head || self == .options || self == "TRACE"
    }
}
