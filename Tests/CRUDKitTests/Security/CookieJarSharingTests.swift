import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// Who shares cookies: every API made without a transport (they share ``APIConfiguration/defaultTransport``),
    /// transports given the same ``CookieJar``, and nobody else.
    @Suite struct CookieJarSharingTests {
        /// `/login` sets `session=1` for `/probe` (a path no other test uses, since the default transport's jar
        /// is the whole process's), `/logout` expires it, every other path answers 200.
        private static func makeServer() throws -> LoopbackServer {
            let server = LoopbackServer(synchronousHandler: { request in
                var headers = HTTPHeaders()
                switch request.path {
                case "/login": headers.add(name: "Set-Cookie", value: "session=1; Path=/probe")
                case "/logout": headers.add(name: "Set-Cookie", value: "session=1; Path=/probe; Max-Age=0")
                default: break
                }
                return .response(HTTPResponse(status: 200, headers: headers))
            })
            try server.start()
            return server
        }

        @Test func transportsGivenOneJarShareItsCookies() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let jar = CookieJar()
            let first = URLSessionTransport(configuration: .init(cookieJar: jar))
            let second = URLSessionTransport(configuration: .init(cookieJar: jar))
            let other = URLSessionTransport()
            _ = try await first.send(HTTPRequest(url: server.baseURL.appendingPathComponent("login")))
            _ = try await second.send(HTTPRequest(url: server.baseURL.appendingPathComponent("probe")))
            _ = try await other.send(HTTPRequest(url: server.baseURL.appendingPathComponent("probe")))

            let requests = server.requests
            #expect(requests.count == 3)
            #expect(requests[1].headers["Cookie"] == "session=1", "a transport given the jar did not use it")
            #expect(requests[2].headers["Cookie"] == nil, "a transport with a jar of its own got another's cookie")
            #expect(jar.cookieHeader(for: server.baseURL.appendingPathComponent("probe")) == "session=1")
            #expect(first.configuration == second.configuration)
            #expect(first.configuration != other.configuration)
        }

        /// The documented one-liner: an API given `URLSessionTransport()` keeps its cookies to itself.
        @Test func anAPIWithATransportOfItsOwnKeepsItsCookies() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let first = API(baseURL: server.baseURL, transport: URLSessionTransport())
            let second = API(baseURL: server.baseURL, transport: URLSessionTransport())
            try await first.get("login")
            try await first.get("probe")
            try await second.get("probe")

            let requests = server.requests
            #expect(requests.count == 3)
            #expect(requests[1].headers["Cookie"] == "session=1")
            #expect(requests[2].headers["Cookie"] == nil, "an API with its own transport got another API's cookie")
        }

        /// What the README says: APIs made without a transport share the default transport's jar.
        @Test func apisWithoutATransportShareTheDefaultJar() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let first = API(baseURL: server.baseURL)
            let second = API(baseURL: server.baseURL)
            try await first.get("login")
            try await second.get("probe")
            try await first.get("logout")
            try await second.get("probe")

            let requests = server.requests
            #expect(requests.count == 4)
            #expect(requests[1].headers["Cookie"] == "session=1")
            #expect(requests[3].headers["Cookie"] == nil)
        }

        @Test func copiesOfAJarAreTheSameJar() throws {
            let jar = CookieJar()
            let copy = jar
            let url = try #require(URL(string: "https://example.com/"))
            copy.store(setCookieHeaders: ["a=1"], for: url)
            #expect(jar.cookieHeader(for: url) == "a=1")
            #expect(jar == copy)
            #expect(jar != CookieJar())
            #expect(CookieJar().cookieHeader(for: url) == nil)
        }
    }
}
