import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An in-memory cookie jar: stores what `Set-Cookie` answers carry and gives the matching `Cookie` header for a
/// request. ``URLSessionTransport`` keeps one per transport; a transport of your own uses
/// ``store(setCookieHeaders:for:)`` after each response and ``cookieHeader(for:)`` before each request.
///
/// URLSession could keep the jar itself, but FoundationNetworking then converts every response header line to a
/// string and parses it as a possible cookie, on every request, which cost about 5% of a small request on
/// loopback. The jar does the same job from the response's headers, only when a `Set-Cookie` is present.
/// `HTTPCookieStorage` matches domains; the jar matches paths (RFC 6265 §5.1.4) and `Secure` itself, since the
/// storage in FoundationNetworking on Linux ignores both and would send a cookie for `/private` to every path.
public struct CookieJar: Sendable {
    /// Where the cookies are kept (`HTTPCookieStorage` guards its state with its own lock); `nil` keeps none.
    private let storage: HTTPCookieStorage?

    init(storage: HTTPCookieStorage?) {
        self.storage = storage
    }

    /// Creates an empty jar of its own, shared with nothing else.
    public init() {
        self.init(storage: URLSessionConfiguration.ephemeral.httpCookieStorage)
    }

    /// The `Cookie` header value to send with a request to `url`; `nil` when no stored cookie matches.
    /// - Parameter url: The request's URL.
    /// - Returns: The header value, or `nil`.
    public func cookieHeader(for url: URL) -> String? {
        header(for: url)
    }

    /// Stores the cookies of `values`, the `Set-Cookie` header lines of a response to a request for `url`.
    /// - Parameters:
    ///   - values: Each `Set-Cookie` field value as received (one cookie each).
    ///   - url: The URL of the request the response answered.
    public func store(setCookieHeaders values: [String], for url: URL) {
        guard let storage, !values.isEmpty else { return }
        var cookies: [HTTPCookie] = []
        for value in values {
            cookies += HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": value], for: url)
        }
        guard !cookies.isEmpty else { return }
        storage.setCookies(cookies, for: url, mainDocumentURL: nil)
    }

    /// The `Cookie` header value for a request to `url`; `nil` when no stored cookie matches.
    func header(for url: URL) -> String? {
        guard let stored = storage?.cookies(for: url), !stored.isEmpty else { return nil }
        // The path as sent, still percent-encoded: an id `a/b` is the one segment `a%2Fb`, not a path below `a`.
        let sent = url.path(percentEncoded: true)
        let path = sent.isEmpty ? "/" : sent
        let secure = url.scheme?.lowercased() == "https"
        let now = Date()
        let cookies =
            stored
            .filter { cookie in
                Self.pathMatches(path, cookie.path) && (secure || !cookie.isSecure)
                    && (cookie.expiresDate.map { $0 > now } ?? true)
            }
            .sorted { $0.path.count > $1.path.count }  // longer paths first, as RFC 6265 §5.4 asks
        guard !cookies.isEmpty else { return nil }
        return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
    }

    /// Whether a request to `path` carries a cookie whose `Path` is `cookiePath` (RFC 6265 §5.1.4): the same path,
    /// or one below it.
    static func pathMatches(_ path: String, _ cookiePath: String) -> Bool {
        let cookiePath = cookiePath.isEmpty ? "/" : cookiePath
        guard path.hasPrefix(cookiePath) else { return false }
        return path.count == cookiePath.count || cookiePath.hasSuffix("/")
            || path.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// Stores the cookies `response` sets; it answered a request to `url`.
    func store(from response: HTTPURLResponse, for url: URL) {
        guard let storage, let value = response.value(forHTTPHeaderField: "Set-Cookie") else { return }
        let cookies = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": value], for: url)
        guard !cookies.isEmpty else { return }
        storage.setCookies(cookies, for: url, mainDocumentURL: nil)
    }
}
