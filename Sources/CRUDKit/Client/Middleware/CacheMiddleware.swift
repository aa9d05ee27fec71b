import Foundation

/// The standard stage that serves and revalidates `GET` responses from a ``ResponseCache``: a `GET` is revalidated
/// against the stored response (`If-None-Match` / `If-Modified-Since`) and a 304 answered from it; a write, once
/// answered (or failed), invalidates what it changes.
///
/// Only requests whose body goes to memory take part (a handle's reads do not; its writes invalidate). Not in the
/// default (`.standard`) list: add it to cache. Two APIs given the same cache (or the same stage) share what
/// it stores.
///
/// ```swift
/// let api = API(baseURL: base).with { $0.middleware.insert(CacheMiddleware(ResponseCache(byteLimit: 8 << 20))) }
/// ```
public struct CacheMiddleware: Middleware {
    /// The cache the stage stores responses in.
    public let cache: ResponseCache

    /// Creates the stage.
    /// - Parameter cache: The cache to store responses in.
    public init(_ cache: ResponseCache) {
        self.cache = cache
    }

    /// ``MiddlewareName/cache``.
    public var name: MiddlewareName { .cache }

    /// Answers or revalidates a `GET` from the cache, or invalidates after a write, around `next`.
    public func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        if request.method.isRead {
            guard case .memory = context.transfer else { return try await next(request, context) }
            // The API's jar's cookies say whose answer this is: they are added here, before the cache chooses (the
            // chain's end adds none to a request that has its own), so APIs whose jars hold different sessions never
            // share an entry.
            var request = request
            request.addCookies(from: context.api.configuration.cookieJar)
            var response = try await cache.response(for: request) { try await next($0, context) }
            response.recordCredentials(
                of: request, jar: context.api.configuration.cookieJar, redaction: context.api.configuration.redaction)
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
