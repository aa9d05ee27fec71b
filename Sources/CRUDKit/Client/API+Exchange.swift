import Foundation

extension API {
    /// One exchange of the pipeline with the transport, for a response received in memory: reads share an
    /// identical read in flight (``APIConfiguration/coalescesReads``) and go through the response cache
    /// (``APIConfiguration/cache``); writes invalidate what they change.
    ///
    /// Called with the request as the interceptors adapted it, once per attempt.
    /// - Throws: What the transport throws.
    func exchange(_ request: HTTPRequest, observer: TransferObserver) async throws -> HTTPResponse {
        let transport = configuration.transport
        let cache = configuration.cache
        switch request.method {
        case .get, .head, .options, "TRACE":
            let fetch: @Sendable () async throws -> HTTPResponse = {
                guard let cache else { return try await transport.send(request, observer: observer) }
                return try await cache.response(for: request) { try await transport.send($0, observer: observer) }
            }
            // A caller watching progress gets its own exchange: progress is reported to one observer only.
            guard configuration.coalescesReads, observer.upload == nil, observer.download == nil,
                let key = RequestCoalescer.Key(request)
            else { return try await fetch() }
            return try await coalescer.response(for: key, operation: fetch)
        default:
            let response: HTTPResponse
            do {
                response = try await transport.send(request, observer: observer)
            } catch {
                written(request, response: nil)
                throw error
            }
            written(request, response: response)
            return response
        }
    }

    /// After a write was answered (or failed): forgets what the cache stored for its path and parent path, and lets
    /// no later read join a read of those paths that was already in flight (it may have been answered before the
    /// write took effect).
    private func written(_ request: HTTPRequest, response: HTTPResponse?) {
        configuration.cache?.invalidate(afterWrite: request, response: response)
        guard configuration.coalescesReads, let path = ResponseCache.path(of: request.url) else { return }
        let stale = Set([path] + (ResponseCache.parent(of: path).map { [$0] } ?? []))
        coalescer.detach { key in
            URL(string: key.url).flatMap(ResponseCache.path(of:)).map(stale.contains) ?? false
        }
    }
}
