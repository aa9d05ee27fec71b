import CRUDKit
import CRUDKitAsyncHTTPClient
@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

/// The adapter keeps cookies in the configuration's `cookieJar` when it names one, as `URLSessionTransport` does:
/// transports given one jar share a login cookie, whichever kind they are. Before, the adapter made a jar of its
/// own whatever the configuration said.
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

    @Test func adapterTransportsGivenOneJarShareItsCookies() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let jar = CookieJar()
        let first = AsyncHTTPClientTransport(configuration: .init(cookieJar: jar))
        let second = AsyncHTTPClientTransport(client: first.client, configuration: .init(cookieJar: jar))
        let other = AsyncHTTPClientTransport(client: first.client)

        _ = try await first.send(HTTPRequest(url: server.baseURL.appendingPathComponent("login")))
        _ = try await second.send(HTTPRequest(url: server.baseURL.appendingPathComponent("probe")))
        _ = try await other.send(HTTPRequest(url: server.baseURL.appendingPathComponent("probe")))
        try await first.shutdown()

        let requests = server.requests
        #expect(requests.count == 3)
        #expect(requests[1].headers["Cookie"] == "session=1", "a transport given the jar did not use it")
        #expect(requests[2].headers["Cookie"] == nil, "a transport with a jar of its own got another's cookie")
        #expect(jar.cookieHeader(for: server.baseURL.appendingPathComponent("probe")) == "session=1")
    }

    @Test func aURLSessionTransportAndAnAdapterShareOneJar() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        // Logged in through URLSession and probed through the adapter, then (with another jar) the other way round.
        for adapterLogsIn in [false, true] {
            let jar = CookieJar()
            let session = API(
                baseURL: server.baseURL, transport: URLSessionTransport(configuration: .init(cookieJar: jar)))
            let transport = AsyncHTTPClientTransport(configuration: .init(cookieJar: jar))
            let adapter = API(baseURL: server.baseURL, transport: transport)
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
