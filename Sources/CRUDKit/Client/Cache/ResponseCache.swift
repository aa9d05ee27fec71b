import Foundation

/// An in-memory HTTP cache for an ``API``: it keeps `GET` responses that carry an `ETag` or a `Last-Modified` date,
/// and asks the server whether they are still current instead of downloading them again.
///
/// URLSession on Linux does no HTTP caching at all (and ``URLSessionTransport`` turns Apple's `URLCache` off so
/// every platform behaves alike), so this is CRUDKit's own. Give an API one with
/// ``CacheMiddleware``:
///
/// ```swift
/// let api = API(baseURL: base).with { $0.middleware.insert(CacheMiddleware(ResponseCache(byteLimit: 8 << 20))) }
/// let first: Person = try await api.get("people/12")   // 200: stored with its ETag
/// let again: Person = try await api.get("people/12")   // sends If-None-Match; a 304 is answered from the cache
/// ```
///
/// How it behaves:
/// - **Always revalidates.** A stored response is never served without asking the server: the next `GET` of the
///   same URL sends `If-None-Match` (the stored `ETag`) and `If-Modified-Since` (the stored `Last-Modified`). On
///   `304 Not Modified` the stored body is served with the 304's headers merged over the stored ones, and with
///   the stored status (200): validators, decoding and logging downstream cannot tell it from a full answer. A 304
///   whose `ETag` (or, without one, `Last-Modified`) is not the stored one names another representation (RFC 9111
///   §4.3.4): the stored response is forgotten and the request sent again without validators, whose answer is
///   served. Any other answer replaces the stored one (or removes it, for a 2xx that cannot be stored, a 404 or a
///   410).
/// - **What is stored:** 2xx answers (except 206) to `GET` requests without a body, `Range` or conditional headers
///   of their own, that carry `ETag` and/or `Last-Modified`, whose `Cache-Control` (request's or response's) does
///   not say `no-store`, and whose `Vary` is not `*`. `private` and `no-cache` are fine: this is a client's own
///   cache, and it revalidates every time anyway.
/// - **Whose response:** entries are keyed by URL and by the request's `Authorization`, `Cookie`, `Accept` and
///   `Accept-Language` values (every field of each) and every other header that carries a credential (an API key, a
///   token header, a header the request marks sensitive or whose name names a secret), plus whatever the response's
///   `Vary` names. Requests that carry credentials are cached, because an API client sends them on every call; a
///   response is only ever served to a request with the same credentials, so one user never sees another's data.
///   The cookies of the API's ``APIConfiguration/cookieJar`` count as the request's `Cookie` (``CacheMiddleware``
///   adds them before choosing), so APIs whose jars hold different users' sessions may share one cache. Entries live
///   in memory only and go with the cache.
/// - **Writes invalidate:** any request whose method is not `GET`, `HEAD`, `OPTIONS` or `TRACE` removes, once it has
///   an answer (or has failed), the stored responses of its URL's path and of the parent path (a `PUT /people/12`
///   forgets `/people/12` and `/people?page=2`), and of the `Location` and `Content-Location` it answers with on
///   the same server. A read that was in flight while a write invalidated anything does not store its answer.
/// - **Limits:** at most ``entryLimit`` entries and ``byteLimit`` bytes (bodies, headers and URLs counted, and the
///   request headers each entry is filed under); the least recently used entries go first, and a response larger
///   than the byte limit is not stored.
///
/// One cache may serve several APIs (it is keyed by absolute URL). All its methods are safe from any thread.
public final class ResponseCache: Sendable {
    /// The most bytes the stored responses may take (bodies, headers and URLs counted, and the request headers each
    /// entry is filed under).
    public let byteLimit: Int
    /// The most responses kept.
    public let entryLimit: Int

    /// The lock guarding the stored entries.
    let storage = Locked(Storage())

    /// Creates an empty cache.
    /// - Parameters:
    ///   - byteLimit: The most bytes the stored responses may take; the least recently used go first.
    ///   - entryLimit: The most responses kept; the least recently used go first.
    public init(byteLimit: Int = 16 << 20, entryLimit: Int = 1000) {
        self.byteLimit = max(0, byteLimit)
        self.entryLimit = max(0, entryLimit)
    }

    /// How many responses are stored.
    public var count: Int { storage.withLock { $0.entries.count } }

    /// How many bytes the stored responses take, as counted against ``byteLimit``.
    public var totalBytes: Int { storage.withLock { $0.bytes } }

    /// The stored response `request` would be revalidated against, if any (without marking it as used).
    public func storedResponse(for request: HTTPRequest) -> HTTPResponse? {
        let key = Key(request)
        return storage.withLock { $0.entries[key] }.flatMap { $0.matches(request) ? $0.response : nil }
    }

    /// Forgets every stored response of `url`'s path, whatever its query or credentials.
    public func invalidate(_ url: URL) {
        guard let path = Self.path(of: url) else { return }
        storage.withLock { storage in
            storage.generation += 1
            storage.removeAll { $0.path == path }
        }
    }

    /// Forgets every stored response.
    public func removeAll() {
        storage.withLock { storage in
            storage.generation += 1
            storage.removeAll { _ in true }
        }
    }

    // MARK: - Paths

    /// Scheme, host, port and percent-encoded path of `url`, without a trailing slash: what invalidation compares.
    static func path(of url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let scheme = components.scheme, let host = components.host
        else { return nil }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        let port = components.port.map { ":\($0)" } ?? ""
        return scheme.lowercased() + "://" + host.lowercased() + port + path
    }

    /// The path a write to `path` also invalidates: the collection it belongs to (`…/people` for `…/people/12`).
    static func parent(of path: String) -> String? {
        guard let schemeEnd = path.range(of: "://"),
            let slash = path[schemeEnd.upperBound...].lastIndex(of: "/")
        else { return nil }
        return String(path[..<slash])
    }
}
