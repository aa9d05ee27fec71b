import Foundation

extension StandardMiddleware {
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
}
