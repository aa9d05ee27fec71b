@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

extension NetworkTests {
    /// Credentials (`Authorization`, `Cookie`, `Proxy-Authorization`) never follow a redirect to another origin:
    /// another host (127.0.0.1 → localhost, the same server), another port (a second server), another scheme.
    @Suite struct CredentialRedirectTests {
        static let credentials: HTTPHeaders = [
            "Authorization": "Bearer secret", "Cookie": "session=s3cret", "Proxy-Authorization": "Basic cHJveHk=",
            "X-Trace": "kept",
        ]

        /// `/hop?to=<url>&status=<code>` redirects there; `/set-cookie` sets a cookie (and redirects to `to` when
        /// given); anything else answers 200.
        private static func makeServer() throws -> LoopbackServer {
            let server = LoopbackServer(synchronousHandler: { request in
                let query = Dictionary(FormParameters.decodePairs(request.query ?? "").map { ($0.name, $0.value) }) {
                    first, _ in first
                }
                switch request.path {
                case "/hop":
                    return .response(
                        HTTPResponse(
                            status: Int(query["status"] ?? "") ?? 302, headers: ["Location": query["to"] ?? ""]))
                case "/set-cookie":
                    guard let to = query["to"] else {
                        return .response(HTTPResponse(status: 200, headers: ["Set-Cookie": "jar=secret; Path=/"]))
                    }
                    return .response(
                        HTTPResponse(status: 302, headers: ["Set-Cookie": "jar=secret; Path=/", "Location": to]))
                default:
                    return .response(HTTPResponse(status: 200))
                }
            })
            try server.start()
            return server
        }

        private static func hop(
            _ server: LoopbackServer, host: String = "127.0.0.1", to target: String, status: Int
        )
            throws -> URL
        {
            var request = HTTPRequest(url: try #require(URL(string: "http://\(host):\(server.port)/hop")))
            try request.appendQuery(["to": .string(target), "status": .string(String(status))])
            return request.url
        }

        private static func expectNoCredentials(_ request: LoopbackRequest?) {
            #expect(request != nil)
            #expect(request?.headers["Authorization"] == nil)
            #expect(request?.headers["Cookie"] == nil)
            #expect(request?.headers["Proxy-Authorization"] == nil)
            #expect(request?.headers["X-Trace"] == "kept", "other headers still follow")
        }

        @Test(arguments: [301, 302, 303, 307, 308])
        func notSentToAnotherHost(status: Int) async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let target = "http://localhost:\(server.port)/landing"

            let response = try await URLSessionTransport().following(
                HTTPRequest(url: try Self.hop(server, to: target, status: status), headers: Self.credentials))

            #expect(response.status == 200)
            let requests = server.requests
            #expect(requests.count == 2)
            #expect(requests.first?.headers["Authorization"] == "Bearer secret")
            #expect(requests.last?.headers["Host"] == "localhost:\(server.port)")
            Self.expectNoCredentials(requests.last)
        }

        @Test(arguments: [302, 307])
        func notSentToAnotherPortOfTheSameHost(status: Int) async throws {
            let first = try Self.makeServer()
            defer { first.stop() }
            let second = try Self.makeServer()
            defer { second.stop() }

            let response = try await URLSessionTransport().following(
                HTTPRequest(
                    url: try Self.hop(first, to: "http://127.0.0.1:\(second.port)/landing", status: status),
                    headers: Self.credentials)
            )

            #expect(response.status == 200)
            #expect(first.requests.count == 1)
            #expect(first.requests.first?.headers["Cookie"] == "session=s3cret")
            #expect(second.requests.count == 1)
            Self.expectNoCredentials(second.requests.first)
        }

        /// Once dropped, credentials stay dropped: a chain that comes back to the first origin does not regain them.
        @Test func notRegainedWhenTheChainReturnsToTheFirstOrigin() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let back = "http://127.0.0.1:\(server.port)/home"
            let away = try Self.hop(server, host: "localhost", to: back, status: 307).absoluteString

            _ = try await URLSessionTransport().following(
                HTTPRequest(url: try Self.hop(server, to: away, status: 307), headers: Self.credentials))

            let requests = server.requests
            #expect(requests.map(\.path) == ["/hop", "/hop", "/home"])
            #expect(requests.last?.headers["Host"] == "127.0.0.1:\(server.port)")
            Self.expectNoCredentials(requests[1])
            Self.expectNoCredentials(requests[2])
        }

        /// A cookie the server set lands in the API's cookie jar; it is not sent to another host, not even by a
        /// redirect of a request that carried it.
        @Test func cookiesFromTheJarStayWithTheirHost() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = ThroughAPI()

            _ = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("set-cookie")))
            _ = try await transport.send(
                HTTPRequest(url: try Self.hop(server, to: "http://localhost:\(server.port)/landing", status: 307)))
            _ = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("again")))

            let requests = server.requests
            #expect(requests.map(\.path) == ["/set-cookie", "/hop", "/landing", "/again"])
            #expect(requests[1].headers["Cookie"] == "jar=secret", "the jar works for its own host")
            #expect(requests[2].headers["Cookie"] == nil, "the cookie of 127.0.0.1 went to localhost")
            #expect(requests[3].headers["Cookie"] == "jar=secret", "the jar works for its own host")
        }

        /// http → https (and back) changes the origin; checked on the policy, since the loopback server has no TLS.
        @Test(arguments: [
            ("http://api.example.com/a", "https://api.example.com/b"),
            ("https://api.example.com/a", "http://api.example.com/b"),
            ("https://api.example.com/a", "https://api.example.com:8443/b"),
            ("http://api.example.com/a", "http://evil.example.com/b"),
            ("http://api.example.com/a", "http://api.example.com.evil.com/b"),
        ])
        func droppedOnAnyChangeOfOrigin(from: String, to: String) throws {
            let request = HTTPRequest(url: try #require(URL(string: from)), headers: Self.credentials)
            for status in [301, 302, 303, 307, 308] {
                let response = HTTPResponse(status: status, headers: ["Location": to])
                let next = try #require(RedirectPolicy.nextRequest(after: response, to: request))
                #expect(next.url.absoluteString == to)
                #expect(next.headers["Authorization"] == nil)
                #expect(next.headers["Cookie"] == nil)
                #expect(next.headers["Proxy-Authorization"] == nil)
                #expect(next.headers["X-Trace"] == "kept")
            }
        }

        @Test(arguments: [
            ("http://api.example.com/a", "/b"), ("http://api.example.com/a", "http://API.example.com:80/b"),
            ("https://api.example.com/a", "https://api.example.com:443/b"),
        ])
        func keptOnTheSameOrigin(from: String, to: String) throws {
            let request = HTTPRequest(url: try #require(URL(string: from)), headers: Self.credentials)
            let next = try #require(
                RedirectPolicy.nextRequest(after: HTTPResponse(status: 307, headers: ["Location": to]), to: request))
            #expect(next.headers["Authorization"] == "Bearer secret")
            #expect(next.headers["Cookie"] == "session=s3cret")
        }
    }
}
