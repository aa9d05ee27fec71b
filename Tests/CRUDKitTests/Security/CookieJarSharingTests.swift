import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// Who shares cookies: an API and its copies (``API/with(_:)``), whatever transport each uses, APIs given the
    /// same ``CookieJar``, and nobody else (not APIs that merely share a transport).
    @Suite struct CookieJarSharingTests {
        /// `/login` sets `session=1` for `/probe`, `/logout` expires it, every other path answers 200.
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

        @Test func apisGivenOneJarShareItsCookies() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let jar = CookieJar()
            let first = ThroughAPI(URLSessionTransport(), cookieJar: jar)
            let second = ThroughAPI(URLSessionTransport(), cookieJar: jar)
            let other = ThroughAPI(URLSessionTransport())
            _ = try await first.send(HTTPRequest(url: server.baseURL.appendingPathComponent("login")))
            _ = try await second.send(HTTPRequest(url: server.baseURL.appendingPathComponent("probe")))
            _ = try await other.send(HTTPRequest(url: server.baseURL.appendingPathComponent("probe")))

            let requests = server.requests
            #expect(requests.count == 3)
            #expect(requests[1].headers["Cookie"] == "session=1", "an API given the jar did not use it")
            #expect(requests[2].headers["Cookie"] == nil, "an API with a jar of its own got another's cookie")
            #expect(jar.cookieHeader(for: server.baseURL.appendingPathComponent("probe")) == "session=1")
            #expect(first.cookieJar == second.cookieJar)
            #expect(first.cookieJar != other.cookieJar)
        }

        /// The jar is the API's, not the transport's: an API logged in through one transport sends the cookie
        /// through another (before, each transport kept a jar of its own and the second sent none).
        @Test func anAPIsJarIsSharedByTwoTransports() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let api = API(baseURL: server.baseURL, transport: URLSessionTransport())
            let elsewhere = api.with { $0.transport = URLSessionTransport() }
            try await api.get("login")
            try await elsewhere.get("probe")
            try await api.get("logout")
            try await elsewhere.get("probe")

            let requests = server.requests
            #expect(requests.count == 4)
            #expect(requests[1].headers["Cookie"] == "session=1", "the second transport did not send the API's cookie")
            #expect(requests[3].headers["Cookie"] == nil, "the logout through the first transport was not kept")
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

        /// APIs made without a transport share the default transport, not its cookies: each has a jar of its own;
        /// a copy made with `with` shares its API's.
        @Test func apisWithoutATransportKeepTheirCookiesApartAndCopiesShareThem() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let first = API(baseURL: server.baseURL)
            let second = API(baseURL: server.baseURL)
            let copy = first.with { $0.headers["X-Copy"] = "1" }
            try await first.get("login")
            try await second.get("probe")
            try await copy.get("probe")
            try await copy.get("logout")
            try await first.get("probe")

            let requests = server.requests
            #expect(requests.count == 5)
            #expect(
                requests[1].headers["Cookie"] == nil, "an API got another API's cookie through the default transport")
            #expect(requests[2].headers["Cookie"] == "session=1", "a copy made with `with` did not share the jar")
            #expect(requests[4].headers["Cookie"] == nil, "the copy's logout did not reach its API's jar")
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
