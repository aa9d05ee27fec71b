import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import Foundation
import Testing

/// The jar follows RFC 6265 itself: which `Domain` it accepts (never a public suffix, never a domain of an IP
/// address, never one the setting host is not inside), which bytes it stores, where a cookie goes back, when it
/// expires, and how many it keeps. Only the public API is used: `store(setCookieHeaders:for:)` and
/// `cookieHeader(for:)`.
@Suite struct CookieJarRFC6265Tests {
    private static func url(_ string: String) throws -> URL {
        try #require(URL(string: string))
    }

    /// A jar holding the one `Set-Cookie` line `line`, received from `origin`.
    private static func jar(_ line: String, from origin: String) throws -> CookieJar {
        let jar = CookieJar()
        jar.store(setCookieHeaders: [line], for: try url(origin))
        return jar
    }

    /// The `name=value` pairs of the `Cookie` header `jar` sends to `target`, in order.
    private static func sent(_ jar: CookieJar, to target: String) throws -> [String] {
        guard let header = jar.cookieHeader(for: try url(target)) else { return [] }
        return header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    // MARK: - Domain (RFC 6265 §5.3 steps 5 and 6)

    /// The three cases of the issue, and the same attack on other common suffixes: a `Domain` that is a public
    /// suffix (or a domain of an IP address) never reaches a neighbour, and the cookie is not kept at all.
    @Test(arguments: [
        ("https://api.example.co.uk/", "s=1; Domain=co.uk", "https://evil.co.uk/"),
        ("https://api.example.co.uk/", "s=1; Domain=.co.uk", "https://evil.co.uk/"),
        ("https://api.test/", "s=1; Domain=test", "https://evil.test/"),
        ("http://127.0.0.1/", "s=1; Domain=.0.0.1", "http://10.0.0.1/"),
        ("http://127.0.0.1/", "s=1; Domain=0.1", "http://10.0.0.1/"),
        ("https://shop.example.com.au/", "s=1; Domain=com.au", "https://evil.com.au/"),
        ("https://www.example.co.jp/", "s=1; Domain=co.jp", "https://evil.co.jp/"),
        ("https://api.example.com/", "s=1; Domain=com", "https://evil.com/"),
        ("https://api.example.de/", "s=1; Domain=DE", "https://evil.de/"),
        ("http://app.localhost/", "s=1; Domain=localhost", "http://evil.localhost/"),
        ("https://me.github.io/", "s=1; Domain=github.io", "https://evil.github.io/"),
        ("https://a.example.ck/", "s=1; Domain=example.ck", "https://evil.example.ck/"),
    ])
    func aPublicSuffixOrIPDomainIsRefused(origin: String, line: String, neighbour: String) throws {
        let jar = try Self.jar(line, from: origin)
        #expect(try Self.sent(jar, to: neighbour).isEmpty, "\(line) from \(origin) reached \(neighbour)")
        #expect(try Self.sent(jar, to: origin).isEmpty, "\(line) was kept though it must be ignored")
    }

    /// A `Domain` the setting host is not inside is ignored with its cookie (§5.3 step 6).
    @Test(arguments: [
        ("https://api.example.com/", "s=1; Domain=other.com", "https://other.com/"),
        ("https://api.example.com/", "s=1; Domain=ample.com", "https://ample.com/"),
        ("https://example.com/", "s=1; Domain=api.example.com", "https://api.example.com/"),
        ("http://127.0.0.1/", "s=1; Domain=localhost", "http://localhost/"),
        ("http://localhost/", "s=1; Domain=127.0.0.1", "http://127.0.0.1/"),
    ])
    func aDomainTheHostIsNotInIsRefused(origin: String, line: String, target: String) throws {
        let jar = try Self.jar(line, from: origin)
        #expect(try Self.sent(jar, to: target).isEmpty)
        #expect(try Self.sent(jar, to: origin).isEmpty)
    }

    @Test func aDomainCookieReachesTheDomainAndItsSubdomainsOnly() throws {
        let jar = try Self.jar("s=1; Domain=Example.COM", from: "https://api.example.com/")
        #expect(try Self.sent(jar, to: "https://example.com/") == ["s=1"])
        #expect(try Self.sent(jar, to: "https://www.example.com/") == ["s=1"])
        #expect(try Self.sent(jar, to: "https://a.b.example.com/x") == ["s=1"])
        #expect(try Self.sent(jar, to: "https://notexample.com/").isEmpty)
        #expect(try Self.sent(jar, to: "https://example.com.evil.org/").isEmpty)
    }

    @Test func aCookieWithoutDomainStaysOnItsHost() throws {
        let jar = try Self.jar("s=1", from: "https://api.example.com/")
        #expect(try Self.sent(jar, to: "https://api.example.com/") == ["s=1"])
        #expect(try Self.sent(jar, to: "https://sub.api.example.com/").isEmpty)
        #expect(try Self.sent(jar, to: "https://example.com/").isEmpty)
    }

    /// An IP address may set a cookie for itself (host-only, even with `Domain` equal to it), never for others.
    @Test func anIPAddressGetsHostOnlyCookies() throws {
        let jar = CookieJar()
        jar.store(setCookieHeaders: ["a=1", "b=2; Domain=127.0.0.1"], for: try Self.url("http://127.0.0.1:8080/"))
        #expect(try Self.sent(jar, to: "http://127.0.0.1:8080/") == ["a=1", "b=2"])
        #expect(try Self.sent(jar, to: "http://10.0.0.1/").isEmpty)
        #expect(try Self.sent(jar, to: "http://evil.127.0.0.1/").isEmpty)
    }

    /// A public suffix naming the setting host itself is a host-only cookie (§5.3 step 5).
    @Test func aPublicSuffixEqualToTheHostIsHostOnly() throws {
        let jar = try Self.jar("s=1; Domain=localhost", from: "http://localhost:8080/")
        #expect(try Self.sent(jar, to: "http://localhost:8080/") == ["s=1"])
        #expect(try Self.sent(jar, to: "http://a.localhost:8080/").isEmpty)
    }

    // MARK: - Control characters

    /// Every C0 control (but tab) and DEL, in the name, the value or an attribute, and the CR injection of the
    /// issue: the cookie is refused, so no header can carry it.
    @Test func controlCharactersAreRefusedEverywhere() throws {
        let forbidden: [UInt8] = Array(0...8) + Array(10...31) + [127]
        for byte in forbidden {
            let control = String(UnicodeScalar(byte))
            let lines = [
                "a=b\(control)X-Injected: 1", "a\(control)=b", "\(control)a=b", "a=b; Path=/\(control)x",
                "a=b; Domain=example.com\(control)", "a=b; Max-Age=100\(control)",
            ]
            for line in lines {
                let jar = try Self.jar(line, from: "https://example.com/")
                #expect(
                    jar.cookieHeader(for: try Self.url("https://example.com/")) == nil,
                    "\(line.debugDescription) was stored")
            }
        }
        let jar = try Self.jar("a=b\rX-Injected: 1", from: "http://127.0.0.1/")
        #expect(jar.cookieHeader(for: try Self.url("http://127.0.0.1/")) == nil)
    }

    // MARK: - Path (§5.1.4)

    @Test func theDefaultPathIsTheDirectoryOfTheRequest() throws {
        let jar = CookieJar()
        jar.store(setCookieHeaders: ["d=1", "r=1; Path=relative"], for: try Self.url("https://example.com/a/b/c"))
        #expect(try Self.sent(jar, to: "https://example.com/a/b") == ["d=1", "r=1"])
        #expect(try Self.sent(jar, to: "https://example.com/a/b/x") == ["d=1", "r=1"])
        #expect(try Self.sent(jar, to: "https://example.com/a/c").isEmpty)
        #expect(try Self.sent(jar, to: "https://example.com/").isEmpty)
    }

    @Test func longerPathsComeFirstAndASameNamedCookieIsReplaced() throws {
        let jar = CookieJar()
        let origin = try Self.url("https://example.com/")
        jar.store(setCookieHeaders: ["a=1; Path=/", "b=1; Path=/x/y", "c=1; Path=/x"], for: origin)
        jar.store(setCookieHeaders: ["a=2; Path=/"], for: origin)
        #expect(try Self.sent(jar, to: "https://example.com/x/y/z") == ["b=1", "c=1", "a=2"])
    }

    // MARK: - Secure, HttpOnly

    @Test func secureCookiesTravelOverHTTPSOnly() throws {
        let jar = CookieJar()
        jar.store(setCookieHeaders: ["s=1; Secure", "h=1; HttpOnly"], for: try Self.url("https://example.com/"))
        #expect(try Self.sent(jar, to: "https://example.com/") == ["s=1", "h=1"])
        #expect(try Self.sent(jar, to: "http://example.com/") == ["h=1"])
        #expect(try Self.sent(jar, to: "http://localhost/").isEmpty)
    }

    /// A plain-HTTP answer cannot set a `Secure` cookie (RFC 6265bis §5.6 step 9), so it cannot be sent over HTTPS.
    @Test func plainHTTPCannotSetASecureCookie() throws {
        let jar = try Self.jar("s=1; Secure", from: "http://example.com/")
        #expect(try Self.sent(jar, to: "https://example.com/").isEmpty)
    }

    /// Plain HTTP cannot overwrite or shadow a `Secure` cookie of the same name (RFC 6265bis §5.7 step 16): an
    /// attacker on the network cannot replace an HTTPS session.
    @Test func plainHTTPCannotOverwriteASecureCookie() throws {
        let jar = try Self.jar("session=good; Secure; Path=/", from: "https://example.com/")
        jar.store(
            setCookieHeaders: ["session=evil; Path=/", "session=evil; Path=/deeper", "other=1; Path=/"],
            for: try Self.url("http://example.com/"))
        jar.store(
            setCookieHeaders: ["session=evil; Domain=example.com; Path=/"], for: try Self.url("http://www.example.com/")
        )
        #expect(try Self.sent(jar, to: "https://example.com/deeper") == ["session=good", "other=1"])
        #expect(try Self.sent(jar, to: "https://www.example.com/").isEmpty)
        jar.store(setCookieHeaders: ["session=renewed; Secure; Path=/"], for: try Self.url("https://example.com/"))
        #expect(try Self.sent(jar, to: "https://example.com/") == ["session=renewed", "other=1"])
    }

    /// `__Secure-` and `__Host-` names keep their promises (RFC 6265bis §4.1.3).
    @Test func cookiePrefixesAreEnforced() throws {
        let jar = CookieJar()
        jar.store(
            setCookieHeaders: [
                "__Secure-a=1", "__Secure-b=1; Secure", "__Host-c=1; Secure; Path=/",
                "__Host-d=1; Secure; Path=/; Domain=example.com", "__Host-e=1; Secure; Path=/x", "__Host-f=1; Path=/",
            ],
            for: try Self.url("https://example.com/"))
        #expect(try Self.sent(jar, to: "https://example.com/") == ["__Secure-b=1", "__Host-c=1"])
    }

    // MARK: - Expiry (§5.2.1, §5.2.2)

    @Test func maxAgeAndExpiresDecideHowLongACookieLives() throws {
        let jar = CookieJar()
        let origin = try Self.url("https://example.com/")
        jar.store(
            setCookieHeaders: [
                "keep=1; Max-Age=3600", "future=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT",
                "past=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "zero=1; Max-Age=0", "negative=1; Max-Age=-5",
                "wins=1; Max-Age=0; Expires=Wed, 21 Oct 2099 07:28:00 GMT",
                "bad=1; Max-Age=soon", "oldyear=1; Expires=Sunday, 06-Nov-94 08:49:37 GMT",
            ],
            for: origin)
        #expect(try Self.sent(jar, to: "https://example.com/") == ["keep=1", "future=1", "bad=1"])
        jar.store(
            setCookieHeaders: ["keep=gone; Max-Age=0", "future=gone; Expires=Fri, 01 Jan 2021 00:00:00 GMT"],
            for: origin)
        #expect(try Self.sent(jar, to: "https://example.com/") == ["bad=1"])
    }

    // MARK: - Limits (§6.1)

    /// 20 hosts set 1,000 cookies each: the header for one request carries that host's newest 50, not 20,000.
    @Test func twentyHostsTimesAThousandCookiesStayBounded() throws {
        let jar = CookieJar()
        for host in 0..<20 {
            let origin = try Self.url("https://host\(host).example.com/")
            jar.store(setCookieHeaders: (0..<1000).map { "c\($0)=\(String(repeating: "v", count: 10))" }, for: origin)
        }
        let header = try #require(jar.cookieHeader(for: try Self.url("https://host7.example.com/")))
        let names = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).prefix { $0 != "=" } }
        #expect(names.count == 50)
        #expect(Set(names) == Set((950..<1000).map { "c\($0)" }), "the oldest cookies must go first")
        #expect(header.utf8.count < 1_000)
        var kept = 0
        for host in 0..<20 { kept += try Self.sent(jar, to: "https://host\(host).example.com/").count }
        #expect(kept == 20 * 50)
        print("RELIABILITY cookies: hosts=20 set=20000 kept=\(kept) header_bytes=\(header.utf8.count)")
    }

    /// Beyond 3,000 cookies in all, the oldest go, whatever their host.
    @Test func theWholeJarKeepsThreeThousandAtMost() throws {
        let jar = CookieJar()
        for host in 0..<61 {
            let origin = try Self.url("https://h\(host).example.org/")
            jar.store(setCookieHeaders: (0..<50).map { "c\($0)=1" }, for: origin)
        }
        #expect(jar.cookieHeader(for: try Self.url("https://h0.example.org/")) == nil, "the oldest host's cookies stay")
        #expect(try Self.sent(jar, to: "https://h1.example.org/").count == 50)
        #expect(try Self.sent(jar, to: "https://h60.example.org/").count == 50)
    }

    /// Seeded random `Set-Cookie` lines (controls, separators, dots, long runs) from random hosts, IP addresses
    /// included: nothing traps, and every header the jar gives is a valid field value of at most 50 cookies.
    @Test func randomSetCookieLinesNeverYieldAnUnsafeHeader() throws {
        var random = SeededGenerator(seed: 0xC00C1E)
        let alphabet = Array(
            "ab=; ,.\t\r\n\u{0}\u{1}\u{7F}\"/-_:0123456789ExpiresMax-AgeDomainPathSecure".unicodeScalars)
        let hosts = ["a.example.com", "example.com", "co.uk", "x.co.uk", "127.0.0.1", "localhost", "[::1]"]
        let jar = CookieJar()
        for _ in 0..<5_000 {
            let length = Int(random.next() % 80)
            var line = String.UnicodeScalarView()
            for _ in 0..<length { line.append(alphabet[Int(random.next() % UInt64(alphabet.count))]) }
            let host = hosts[Int(random.next() % UInt64(hosts.count))]
            let scheme = random.next() % 2 == 0 ? "http" : "https"
            jar.store(setCookieHeaders: [String(line)], for: try Self.url("\(scheme)://\(host)/p/q"))
        }
        var headers = 0
        for host in hosts {
            for scheme in ["http", "https"] {
                guard let header = jar.cookieHeader(for: try Self.url("\(scheme)://\(host)/p/q")) else { continue }
                headers += 1
                #expect(header.utf8.allSatisfy { $0 == 9 || ($0 >= 32 && $0 != 127) }, "\(header.debugDescription)")
                #expect(header.components(separatedBy: "; ").count <= 50 * 3)
            }
        }
        #expect(headers >= 5, "the random lines stored almost nothing: the test would prove little")
    }

    /// One cookie of more than 4,096 bytes (name, value and attributes) is refused; one of 4,096 is kept.
    @Test func aCookieOfMoreThan4096BytesIsRefused() throws {
        let jar = CookieJar()
        let origin = try Self.url("https://example.com/")
        let fits = "a=" + String(repeating: "x", count: 4096 - "a=; Path=/".utf8.count) + "; Path=/"
        let tooBig = "b=" + String(repeating: "x", count: 4096 - "b=; Path=/".utf8.count + 1) + "; Path=/"
        #expect(fits.utf8.count == 4096 && tooBig.utf8.count == 4097)
        jar.store(setCookieHeaders: [fits, tooBig], for: origin)
        #expect(try Self.sent(jar, to: "https://example.com/").map { $0.prefix(2) } == ["a="])
    }
}
