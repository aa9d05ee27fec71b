import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// The API's cookies, kept by the end of its middleware chain over a transport that keeps none (`StubTransport`,
/// no socket): what `Set-Cookie` stores, what goes back in `Cookie`, and what never does.
@Suite struct ChainCookieTests {
    let stubs = StubTransport()

    init() {
        stubs.on(nil, "/**", .status(200))
        var login = HTTPHeaders()
        login.add(name: "Set-Cookie", value: "session=abc; Path=/")
        login.add(name: "Set-Cookie", value: "admin=1; Path=/admin")
        login.add(name: "Set-Cookie", value: "vault=v; Path=/; Secure")
        stubs.on(.get, "/login", .status(204, headers: login))
        stubs.on(.get, "/inject", .status(204, headers: ["Set-Cookie": "evil=1\r\nX-Planted: 1; Path=/"]))
    }

    func api(_ base: String = "http://api.example.com", jar: CookieJar = CookieJar()) -> API {
        API(configuration: APIConfiguration(baseURL: URL(string: base), transport: stubs, cookieJar: jar))
    }

    @Test func storesEverySetCookieAndSendsThemBackByPathAndScheme() async throws {
        let api = api("https://api.example.com")
        try await api.get("login")
        try await api.get("me")
        try await api.get("admin/x")
        try await api.get(URL(string: "http://api.example.com/me")!)

        let sent = stubs.recorder.requests.map { Set(($0.header("Cookie") ?? "").components(separatedBy: "; ")) }
        #expect(sent[0] == [""])
        #expect(sent[1] == ["session=abc", "vault=v"], "a cookie scoped to /admin went to /me")
        #expect(sent[2] == ["session=abc", "admin=1", "vault=v"])
        #expect(sent[3] == ["session=abc"], "a Secure cookie went over plain HTTP")
    }

    @Test func neverSendsAHostsCookieToAnotherHost() async throws {
        let jar = CookieJar()
        try await api(jar: jar).get("login")
        try await api("http://other.example.com", jar: jar).get("me")
        try await api("http://example.com", jar: jar).get("me")

        #expect(stubs.recorder.requests.dropFirst().allSatisfy { $0.header("Cookie") == nil })
    }

    @Test func aRequestsOwnCookieHeaderWinsOverTheJar() async throws {
        let api = api()
        try await api.get("login")
        try await api.get("me", headers: ["Cookie": "own=1"])
        #expect(stubs.recorder.last?.header("Cookie") == "own=1")
    }

    @Test func aCookieWithAControlCharacterIsRefused() async throws {
        let api = api()
        try await api.get("inject")
        try await api.get("me")
        #expect(api.configuration.cookieJar.cookieHeader(for: URL(string: "http://api.example.com/me")!) == nil)
        #expect(stubs.recorder.last?.header("Cookie") == nil)
        #expect(stubs.recorder.last?.header("X-Planted") == nil)
    }

    /// Copies made with `with` share the jar, whatever transport they use; a new configuration has a jar of its own.
    @Test func copiesShareTheJarAndNewConfigurationsDoNot() async throws {
        let api = api()
        let other = StubTransport().on(nil, "/**", .status(200))
        try await api.get("login")
        try await api.with { $0.transport = other }.get("me")
        try await api.with { $0.cookieJar = CookieJar() }.get("me")

        #expect(other.recorder.last?.header("Cookie") == "session=abc")
        #expect(stubs.recorder.last?.header("Cookie") == nil)
        #expect(APIConfiguration(baseURL: nil).cookieJar != APIConfiguration(baseURL: nil).cookieJar)
    }
}
