import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Testing

/// Cookies are the API's (`APIConfiguration.cookieJar`), kept by the end of its middleware chain, so the adapter
/// shares them as `URLSessionTransport` does: APIs given one jar share a login cookie, whichever transport each
/// has, and an API keeps its cookies when its transport changes. Before, each transport kept a jar of its own (and
/// the adapter once ignored the jar it was given).
@Suite(.timeLimit(.minutes(1))) struct CookieJarSharingTests {
    /// `/login` sets `session=1` for `/probe`; every path answers 200.
    static func makeServer() throws -> LoopbackServer {
        let server = LoopbackServer(synchronousHandler: { request in
            var headers = HTTPHeaders()
            if request.path == "/login" { headers.add(name: "Set-Cookie", value: "session=1; Path=/probe") }
            return .response(HTTPResponse(status: 200, headers: headers))
        })
        try server.start()
        return server
    }

    @Test func adapterAPIsGivenOneJarShareItsCookies() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let jar = CookieJar()
        let first = AsyncHTTPClientTransport()
        let second = AsyncHTTPClientTransport(client: first.client)
        let loggedIn = API(configuration: APIConfiguration(baseURL: server.baseURL, transport: first, cookieJar: jar))
        let sharing = API(configuration: APIConfiguration(baseURL: server.baseURL, transport: second, cookieJar: jar))
        let other = API(baseURL: server.baseURL, transport: second)

        try await loggedIn.get("login")
        try await sharing.get("probe")
        try await other.get("probe")
        try await first.shutdown()

        let requests = server.requests
        #expect(requests.count == 3)
        #expect(requests[1].headers["Cookie"] == "session=1", "an API given the jar did not use it")
        #expect(requests[2].headers["Cookie"] == nil, "an API with a jar of its own got another's cookie")
        #expect(jar.cookieHeader(for: server.baseURL.appendingPathComponent("probe")) == "session=1")
    }

    /// One API's jar, two transports: logged in through URLSession and probed through the adapter, then (with
    /// another API) the other way round.
    @Test func anAPIsJarIsSharedByAURLSessionTransportAndAnAdapter() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        for adapterLogsIn in [false, true] {
            let transport = AsyncHTTPClientTransport()
            let session = API(baseURL: server.baseURL, transport: URLSessionTransport())
            let adapter = session.with { $0.transport = transport }
            try await (adapterLogsIn ? adapter : session).get("login")
            try await (adapterLogsIn ? session : adapter).get("probe")
            try await transport.shutdown()
        }

        let requests = server.requests
        #expect(requests.count == 4)
        #expect(requests[1].headers["Cookie"] == "session=1", "the adapter did not send URLSession's login cookie")
        #expect(requests[3].headers["Cookie"] == "session=1", "URLSession did not send the adapter's login cookie")
    }
}
