import CRUDKitCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An in-memory cookie jar that follows RFC 6265: stores what `Set-Cookie` answers carry and gives the matching
/// `Cookie` header for a request. Each `APIConfiguration` holds one (`APIConfiguration.cookieJar`), which the end of
/// the API's middleware chain reads before every exchange and fills from every response, whatever the transport:
/// transports keep no cookies.
///
/// The jar parses and matches cookies itself rather than through `HTTPCookieStorage`, which on Linux checks
/// neither public suffixes nor IP addresses. What it refuses, so that no server can plant a cookie for another:
/// - a `Domain` the answering host is not inside (`Domain=other.com` from `api.example.com`);
/// - a `Domain` that is a public suffix (`co.uk`, `com`, `test`, `github.io`; see `CookieJar+PublicSuffix.swift`
///   for the built-in list) unless it is the answering host itself, which then gets a host-only cookie. A fully
///   qualified name is the same name: one trailing dot is ignored in a host and in a `Domain` (`Domain=com.` from
///   `api.evil.com.` is `Domain=com`, refused), so `api.example.com.` and `api.example.com` share their cookies;
/// - a `Domain` with an empty label (`Domain=..com`, `Domain=com..`);
/// - a `Domain` from a host that is an IP address (`Domain=.0.0.1` from `127.0.0.1`): an IP address gets host-only
///   cookies;
/// - a cookie with a control character (CR, LF, NUL, any other C0 control but tab, DEL) in its name, value or
///   attributes, so a cookie can never inject a header;
/// - a `Secure` cookie from plain HTTP, a cookie from plain HTTP that would overwrite a `Secure` one of the same
///   name, and `__Secure-` / `__Host-` names that break their prefix's rules;
/// - a cookie of more than 4,096 bytes (name, value and attributes).
///
/// It keeps at most 50 cookies per domain and 3,000 in all (the minimums of RFC 6265 §6.1), removing the expired,
/// then the oldest (the least recently created) first. Storing a cookie and looking up a request's cost what that
/// host's cookies cost, however many hosts the jar holds. It sends a cookie to its host (or, with a `Domain`, to that domain and its
/// subdomains), under its `Path` (§5.1.4), `Secure` ones over HTTPS only, until `Max-Age` or `Expires`; `HttpOnly`
/// makes no difference, since there are no scripts. Cookies live in memory only.
///
/// Copies of a jar share its cookies: give the same jar to two APIs (`APIConfiguration.cookieJar`) and they share
/// cookies; make a new one and it shares nothing.
///
/// ```swift
/// let jar = CookieJar()
/// jar.store(setCookieHeaders: ["session=abc; Path=/; Secure"], for: URL(string: "https://api.example.com/login")!)
/// jar.cookieHeader(for: URL(string: "https://api.example.com/people")!)  // "session=abc"
/// ```
public struct CookieJar: Sendable, Hashable {
    /// Cookies kept per domain at most (RFC 6265 §6.1).
    static let maximumCookiesPerDomain = 50
    /// Cookies kept in all at most (RFC 6265 §6.1).
    static let maximumCookies = 3_000
    /// Bytes of one `Set-Cookie` value (name, value and attributes) at most (RFC 6265 §6.1).
    static let maximumCookieSize = 4_096

    /// The cookies, by the domain they belong to, each domain's in the order they were created.
    private let state: Locked<CookieStore>

    /// Creates an empty jar of its own, shared with nothing else.
    public init() {
        state = Locked(CookieStore())
    }

    /// The `Cookie` header value to send with a request to `url`; `nil` when no stored cookie matches.
    /// - Parameter url: The request's URL.
    /// - Returns: The header value, or `nil`.
    public func cookieHeader(for url: URL) -> String? {
        header(for: url)
    }

    /// Stores the cookies of `values`, the `Set-Cookie` header lines of a response to a request for `url`.
    ///
    /// Each value is one cookie; one the jar refuses (see ``CookieJar``) is ignored.
    /// - Parameters:
    ///   - values: Each `Set-Cookie` field value as received (one cookie each).
    ///   - url: The URL of the request the response answered.
    public func store(setCookieHeaders values: [String], for url: URL) {
        store(values, for: url, now: Date())
    }

    /// Two jars are equal when they are the same jar (copies of one), sharing their cookies.
    /// - Parameters:
    ///   - lhs: A jar.
    ///   - rhs: Another jar.
    /// - Returns: Whether both are the same jar.
    public static func == (lhs: CookieJar, rhs: CookieJar) -> Bool {
        lhs.state.storage === rhs.state.storage
    }

    /// Hashes the jar's identity.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(state.storage))
    }

    // MARK: - Internal entry points

    /// The `Cookie` header value for a request to `url` at `now`; `nil` when no stored cookie matches.
    func header(for url: URL, now: Date = Date()) -> String? {
        // An empty jar (the usual case) answers before the URL's host and path are worked out.
        guard state.withLock({ $0.count > 0 }), let host = Self.canonicalHost(of: url) else { return nil }
        let path = Self.requestPath(of: url)
        let secure = url.scheme?.lowercased() == "https"
        let cookies = state.withLock { $0.cookies(host: host, path: path, secure: secure, now: now) }
        guard !cookies.isEmpty else { return nil }
        let header = cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
        // Stored cookies never hold a control character; checked again so the header is safe whatever happens.
        return Self.isValidFieldValue(header) ? header : nil
    }

    /// Stores the cookies `headers` set, the header fields of a response to a request for `url`.
    ///
    /// Every `Set-Cookie` field counts. `HTTPURLResponse` joins repeated fields with commas, so each is split again
    /// where a comma is followed by `name=` (a comma in an `Expires` date is followed by the day of the month).
    package func store(from headers: HTTPHeaders, for url: URL) {
        var lines: [String] = []
        for field in headers where field.name.utf8.count == 10 && field.name.lowercased() == "set-cookie" {
            lines += Self.splitCombinedSetCookie(field.value)
        }
        store(lines, for: url, now: Date())
    }

    /// Stores the cookies of the `Set-Cookie` values `lines`, received at `now` in answer to a request for `url`.
    func store(_ lines: [String], for url: URL, now: Date) {
        guard !lines.isEmpty, let host = Self.canonicalHost(of: url) else { return }
        let secure = url.scheme?.lowercased() == "https"
        let defaultPath = Self.defaultPath(of: url)
        let cookies = lines.compactMap { line -> Cookie? in
            guard let parsed = Self.parse(line, now: now) else { return nil }
            return Self.accept(parsed, host: host, secure: secure, defaultPath: defaultPath)
        }
        guard !cookies.isEmpty else { return }
        state.withLock { store in
            for cookie in cookies { store.insert(cookie, fromSecureOrigin: secure, now: now) }
        }
    }

    /// How many cookies the jar holds (expired ones not yet removed included).
    var count: Int { state.withLock { $0.count } }

    /// Domains looked at by stores and lookups so far (for tests: what one costs).
    var visits: Int { state.withLock { $0.visits } }

    /// The records the jar keeps to find the oldest and the expired cookies (for tests).
    var queuedRecords: Int { state.withLock { $0.queuedRecords } }

    // MARK: - Storage model (RFC 6265 §5.3)

    /// The cookie `parsed` becomes when a host `host` sets it, or `nil` when the jar must ignore it.
    static func accept(_ parsed: SetCookie, host: String, secure: Bool, defaultPath: String) -> Cookie? {
        var domain = host
        var hostOnly = true
        if let attribute = parsed.domain {
            // An empty label (`Domain=..com`, `Domain=com..`) names no real domain.
            guard !hasEmptyLabel(attribute) else { return nil }
            if attribute == host {
                // A public suffix, or an IP address, naming the host itself: a host-only cookie (§5.3 step 5).
                hostOnly = isIPAddress(host) || isPublicSuffix(attribute)
            } else {
                guard !isIPAddress(host), !isPublicSuffix(attribute), domainMatches(host, attribute) else { return nil }
                domain = attribute
                hostOnly = false
            }
        }
        if parsed.secure && !secure { return nil }
        let path = parsed.path ?? defaultPath
        let lowercasedName = parsed.name.lowercased()
        if lowercasedName.hasPrefix("__secure-") && !parsed.secure { return nil }
        if lowercasedName.hasPrefix("__host-") && (!parsed.secure || parsed.domain != nil || path != "/") {
            return nil
        }
        return Cookie(
            name: parsed.name, value: parsed.value, domain: domain, hostOnly: hostOnly, path: path,
            secure: parsed.secure, expires: parsed.expires, created: 0)
    }

    /// The request's host as cookies compare it: lower-cased, without the brackets of an IPv6 address, and without
    /// the trailing dot of a fully qualified name (`api.example.com.` is `api.example.com`, so it gets its own
    /// cookies and meets the public-suffix rule as `api.example.com` does); `nil` for no host or a name with an
    /// empty label (`a..com`), which gets no cookies.
    static func canonicalHost(of url: URL) -> String? {
        guard var host = url.host?.lowercased(), !host.isEmpty else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { return String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        guard !host.isEmpty, !hasEmptyLabel(host) else { return nil }
        return host
    }

    /// Whether the dotted name `name` has an empty label: a dot at either end or two dots in a row.
    static func hasEmptyLabel(_ name: String) -> Bool {
        name.hasPrefix(".") || name.hasSuffix(".") || name.contains("..")
    }

    /// The path as sent, still percent-encoded: an id `a/b` is the one segment `a%2Fb`, not a path below `a`.
    static func requestPath(of url: URL) -> String {
        let sent = url.path(percentEncoded: true)
        return sent.isEmpty ? "/" : sent
    }

    /// The default path of a cookie set in answer to `url` (RFC 6265 §5.1.4): the request path up to, not
    /// including, its last `/`; `/` when that leaves nothing.
    static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// Whether a request to `path` carries a cookie whose `Path` is `cookiePath` (RFC 6265 §5.1.4): the same path,
    /// or one below it.
    package static func pathMatches(_ path: String, _ cookiePath: String) -> Bool {
        let cookiePath = cookiePath.isEmpty ? "/" : cookiePath
        guard path.hasPrefix(cookiePath) else { return false }
        return path.count == cookiePath.count || cookiePath.hasSuffix("/")
            || path.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// Whether `host` is `domain` or inside it (RFC 6265 §5.1.3); an IP address is inside nothing.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        guard host.count > domain.count + 1, host.hasSuffix(domain), !isIPAddress(host) else { return false }
        return host.dropLast(domain.count).hasSuffix(".")
    }

    /// Whether `value` may be sent as a header field value: no control character but tab, no DEL (the rule of
    /// `HTTPRequest/validate()`).
    static func isValidFieldValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 == 9 || ($0 >= 32 && $0 != 127) }
    }
}
