import Foundation
import Testing

@_spi(TransportKit) @testable import CRUDKitHTTP

/// A full jar costs what one host's cookies cost: storing and looking up never walks the other hosts' cookies,
/// while the RFC 6265 limits (50 per domain, 3,000 in all, the oldest first, expired ones before any) still hold.
@Suite struct CookieJarScaleTests {
    private static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A jar of 3,000 cookies over 1,000 hosts (`h0.example.com` … `h999.example.com`), three each, each `Secure`.
    private static func fullJar() -> CookieJar {
        let jar = CookieJar()
        for host in 0..<1_000 {
            jar.store(
                ["a=1; Secure", "b=2; Secure", "c=3; Secure"],
                for: URL(string: "https://h\(host).example.com/")!, now: now)
        }
        return jar
    }

    @Test func storingIntoAFullJarVisitsOneHostsCookies() {
        // Given a full jar over 1,000 hosts
        let jar = Self.fullJar()
        #expect(jar.count == 3_000)
        let before = jar.visits
        // When 1,000 new cookies arrive from new hosts, over HTTPS and over plain HTTP (which checks for Secure
        // cookies of the same name it must not shadow)
        for host in 0..<500 {
            jar.store(["new=1"], for: URL(string: "https://n\(host).example.com/")!, now: Self.now)
            jar.store(["a=9"], for: URL(string: "http://m\(host).example.com/")!, now: Self.now)
        }
        // Then each store looked at a handful of domains, not the 1,000 in the jar
        let perStore = Double(jar.visits - before) / 1_000
        #expect(perStore < 16, "each store visited \(perStore) domains")
        #expect(jar.count == 3_000)
        // The oldest went first: the first 333 hosts lost all three cookies, the 334th its first.
        #expect(jar.header(for: URL(string: "https://h0.example.com/")!, now: Self.now) == nil)
        #expect(jar.header(for: URL(string: "https://h332.example.com/")!, now: Self.now) == nil)
        #expect(jar.header(for: URL(string: "https://h333.example.com/")!, now: Self.now) == "b=2; c=3")
        #expect(jar.header(for: URL(string: "https://h334.example.com/")!, now: Self.now) == "a=1; b=2; c=3")
        #expect(jar.header(for: URL(string: "https://n499.example.com/")!, now: Self.now) == "new=1")
    }

    /// A hostile server fills the jar with `Secure` cookies on many subdomains of one parent; a cookie from plain
    /// HTTP for the parent then checks only the subdomains holding a `Secure` cookie of its own name (it walked every
    /// stored subdomain: about 1,000 domains and 44 ms a store in a debug build).
    @Test func aPlainHTTPCookieForAParentChecksOnlySecureCookiesOfItsName() {
        let jar = Self.fullJar()
        let before = jar.visits
        for index in 0..<1_000 {
            jar.store(["x\(index % 10)=1"], for: URL(string: "http://example.com/")!, now: Self.now)
        }
        let perStore = Double(jar.visits - before) / 1_000
        #expect(perStore < 16, "each store visited \(perStore) domains")
        #expect(jar.header(for: URL(string: "http://example.com/")!, now: Self.now)?.contains("x9=1") == true)
        // A name that is Secure on a subdomain is still refused for the parent.
        jar.store(["b=evil"], for: URL(string: "http://example.com/")!, now: Self.now)
        #expect(jar.header(for: URL(string: "http://example.com/")!, now: Self.now)?.contains("b=evil") == false)
    }

    @Test func aLookupInAFullJarVisitsOneHostsCookies() {
        let jar = Self.fullJar()
        let before = jar.visits
        for host in 0..<1_000 {
            _ = jar.header(for: URL(string: "https://h\(host).example.com/")!, now: Self.now)
        }
        #expect(Double(jar.visits - before) / 1_000 < 16)
    }

    @Test func plainHTTPStillCannotShadowASecureCookieOfASubdomainOrParent() {
        let jar = Self.fullJar()
        // `a` is Secure on h5.example.com: plain HTTP may set it neither for the parent domain nor the host.
        jar.store(["a=evil; Domain=example.com"], for: URL(string: "http://h5.example.com/")!, now: Self.now)
        jar.store(["a=evil"], for: URL(string: "http://h5.example.com/")!, now: Self.now)
        jar.store(["a=evil"], for: URL(string: "http://x.h5.example.com/")!, now: Self.now)
        #expect(jar.header(for: URL(string: "https://h5.example.com/")!, now: Self.now) == "a=1; b=2; c=3")
        #expect(jar.header(for: URL(string: "http://x.h5.example.com/")!, now: Self.now) == nil)
        // A name no Secure cookie has is stored as usual.
        jar.store(["z=ok"], for: URL(string: "http://h5.example.com/")!, now: Self.now)
        #expect(jar.header(for: URL(string: "http://h5.example.com/")!, now: Self.now) == "z=ok")
    }

    @Test func expiredCookiesGoBeforeTheOldestLiveOnes() {
        let jar = Self.fullJar()
        // 10 cookies that expire a minute from now, on the newest hosts.
        for host in 0..<10 {
            jar.store(["short=1; Max-Age=60"], for: URL(string: "https://s\(host).example.com/")!, now: Self.now)
        }
        let later = Self.now.addingTimeInterval(120)
        // 10 more: the expired ten go, not the ten oldest live ones.
        for host in 0..<10 {
            jar.store(["late=1"], for: URL(string: "https://t\(host).example.com/")!, now: later)
        }
        #expect(jar.count == 3_000)
        // The ten short ones had evicted h0 to h2 and h3's first; nothing older went for the late ones.
        #expect(jar.header(for: URL(string: "https://h3.example.com/")!, now: later) == "b=2; c=3")
        #expect(jar.header(for: URL(string: "https://h4.example.com/")!, now: later) == "a=1; b=2; c=3")
        #expect(jar.header(for: URL(string: "https://s0.example.com/")!, now: later) == nil)
        #expect(jar.header(for: URL(string: "https://t9.example.com/")!, now: later) == "late=1")
    }

    @Test func aReplacedCookieKeepsItsAgeAndARefreshedOneItsNewExpiry() {
        let jar = CookieJar()
        let url = URL(string: "https://a.example.com/")!
        jar.store(["k=1; Max-Age=60"], for: url, now: Self.now)
        for step in 1...5_000 {
            jar.store(["k=\(step); Max-Age=60"], for: url, now: Self.now.addingTimeInterval(Double(step) / 100))
        }
        #expect(jar.count == 1)
        #expect(jar.header(for: url, now: Self.now.addingTimeInterval(100)) == "k=5000")
        #expect(jar.header(for: url, now: Self.now.addingTimeInterval(111)) == nil)
        #expect(jar.queuedRecords <= 64, "\(jar.queuedRecords) eviction records for one cookie")
        // An expiry that flips between two values (the same records coming back to life) stays bounded too.
        for step in 0..<5_000 { jar.store(["k=\(step); Max-Age=\(60 + step % 2)"], for: url, now: Self.now) }
        #expect(jar.queuedRecords <= 64, "\(jar.queuedRecords) eviction records for one flipping cookie")
        #expect(jar.header(for: url, now: Self.now.addingTimeInterval(60.5)) == "k=4999")
        #expect(jar.header(for: url, now: Self.now.addingTimeInterval(61.5)) == nil)
    }
}
