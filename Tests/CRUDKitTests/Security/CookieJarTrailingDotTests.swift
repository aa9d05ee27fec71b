import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

/// A fully qualified host name (`api.example.com.`, with the root's trailing dot) and a `Domain` written the same way
/// meet the same rules as the names without the dot: a public suffix stays refused, and the host still gets its own
/// cookies. Only the public API is used.
@Suite struct CookieJarTrailingDotTests {
    private static func url(_ string: String) throws -> URL {
        try #require(URL(string: string))
    }

    /// The `name=value` pairs of the `Cookie` header `jar` sends to `target`, in order.
    private static func sent(_ jar: CookieJar, to target: String) throws -> [String] {
        guard let header = jar.cookieHeader(for: try url(target)) else { return [] }
        return header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The three cases (`Domain=com.` from `api.evil.com.` reached `bank.com.`), the same attack spelled
    /// with a leading dot, two dots, upper case, an IDN, and an IP address written with a trailing dot: the cookie is
    /// not kept, and no neighbour, with or without the dot, receives it.
    @Test(arguments: [
        ("https://api.evil.com./", "x=1; Domain=com.", "https://bank.com./"),
        ("https://api.evil.com./", "x=1; Domain=.com.", "https://bank.com./"),
        ("https://api.evil.com./", "x=1; Domain=COM.", "https://bank.com./"),
        ("https://api.evil.com./", "x=1; Domain=..com", "https://bank.com./"),
        ("https://api.evil.com./", "x=1; Domain=com..", "https://bank.com./"),
        ("https://api.evil.com/", "x=1; Domain=com.", "https://bank.com/"),
        ("https://api.example.co.uk./", "x=1; Domain=co.uk.", "https://victim.co.uk./"),
        ("https://a.github.io./", "x=1; Domain=github.io.", "https://b.github.io./"),
        ("https://A.GitHub.IO./", "x=1; Domain=GitHub.IO.", "https://b.github.io./"),
        ("https://shop.xn--bcher-kva.de./", "x=1; Domain=de.", "https://xn--mnchen-3ya.de./"),
        ("http://app.localhost./", "x=1; Domain=localhost.", "http://evil.localhost./"),
        ("http://127.0.0.1./", "x=1; Domain=0.0.1.", "http://10.0.0.1./"),
        ("http://127.0.0.1./", "x=1; Domain=.0.0.1.", "http://10.0.0.1./"),
    ])
    func aTrailingDotDoesNotPassThePublicSuffixRule(origin: String, line: String, neighbour: String) throws {
        let jar = CookieJar()
        jar.store(setCookieHeaders: [line], for: try Self.url(origin))
        let withoutDot = neighbour.replacingOccurrences(of: "./", with: "/")
        #expect(try Self.sent(jar, to: neighbour).isEmpty, "\(line) from \(origin) reached \(neighbour)")
        #expect(try Self.sent(jar, to: withoutDot).isEmpty, "\(line) from \(origin) reached \(withoutDot)")
        #expect(try Self.sent(jar, to: origin).isEmpty, "\(line) was kept though it must be ignored")
    }

    /// A fully qualified host keeps its own cookies, host-only or for its registrable domain, with or without the
    /// dot in `Domain`; it is the same host as the name without the dot, and its neighbours get nothing.
    @Test func aFullyQualifiedHostGetsItsOwnCookies() throws {
        let jar = CookieJar()
        jar.store(
            setCookieHeaders: ["own=1; Path=/", "dom=1; Domain=example.com.; Path=/", "plain=1; Domain=Example.com"],
            for: try Self.url("https://api.example.com./login"))
        #expect(try Self.sent(jar, to: "https://api.example.com./x") == ["own=1", "dom=1", "plain=1"])
        #expect(try Self.sent(jar, to: "https://api.example.com/x") == ["own=1", "dom=1", "plain=1"])
        #expect(try Self.sent(jar, to: "https://www.example.com./") == ["dom=1", "plain=1"])
        #expect(try Self.sent(jar, to: "https://example.com/") == ["dom=1", "plain=1"])
        #expect(try Self.sent(jar, to: "https://example.org./").isEmpty)
        #expect(try Self.sent(jar, to: "https://com./").isEmpty)
    }

    /// A host without the dot may name its domain with one (`Domain=example.com.`), and a public suffix that is the
    /// host itself still gives a host-only cookie.
    @Test func aDomainWithATrailingDotMatchesTheHostWithout() throws {
        let jar = CookieJar()
        jar.store(setCookieHeaders: ["d=1; Domain=example.com."], for: try Self.url("https://api.example.com/"))
        #expect(try Self.sent(jar, to: "https://www.example.com/") == ["d=1"])

        let suffix = CookieJar()
        suffix.store(setCookieHeaders: ["s=1; Domain=localhost."], for: try Self.url("http://localhost./"))
        #expect(try Self.sent(suffix, to: "http://localhost/") == ["s=1"])
        #expect(try Self.sent(suffix, to: "http://a.localhost./").isEmpty)
    }
}

extension NetworkTests {
    /// The trailing-dot rule through an API over `URLSessionTransport` and a real server, reached as `a.localhost` and
    /// `b.localhost` (libcurl resolves `*.localhost` to the loopback address; a name with a trailing dot does not
    /// resolve here, so the dotted host side is covered by ``CookieJarTrailingDotTests``).
    @Suite struct CookieJarTrailingDotLoopbackTests {
        @Test func aDottedDomainIsTheHostsOwnAndNeverThePublicSuffix() async throws {
            let server = LoopbackServer(synchronousHandler: { request in
                var headers = HTTPHeaders()
                if request.path == "/set" {
                    headers.add(name: "Set-Cookie", value: "own=1; Domain=A.localhost.; Path=/")
                    headers.add(name: "Set-Cookie", value: "planted=1; Domain=localhost.; Path=/")
                }
                return .response(HTTPResponse(status: 200, headers: headers))
            })
            try server.start()
            defer { server.stop() }
            let transport = ThroughAPI()
            _ = try await transport.send(
                HTTPRequest(url: try #require(URL(string: "http://a.localhost:\(server.port)/set"))))
            _ = try await transport.send(
                HTTPRequest(url: try #require(URL(string: "http://a.localhost:\(server.port)/again"))))
            _ = try await transport.send(
                HTTPRequest(url: try #require(URL(string: "http://b.localhost:\(server.port)/other"))))

            let requests = server.requests
            #expect(requests.map(\.path) == ["/set", "/again", "/other"])
            #expect(requests.count == 3)
            guard requests.count == 3 else { return }
            #expect(requests[1].headers["Host"] == "a.localhost:\(server.port)")
            #expect(requests[1].headers["Cookie"] == "own=1", "the host's own fully qualified Domain was dropped")
            #expect(requests[2].headers["Cookie"] == nil, "a cookie for the public suffix localhost. reached b")
        }
    }
}
