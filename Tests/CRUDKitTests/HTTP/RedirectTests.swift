@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

extension NetworkTests {
    @Suite struct RedirectTests {
        /// Redirects by path: `/to?l=<location>&s=<status>` answers that status and location; anything else echoes.
        private static func makeServer() throws -> LoopbackServer {
            let server = LoopbackServer(synchronousHandler: { request in
                if request.path == "/to", let query = request.query {
                    let pairs = Dictionary(FormParameters.decodePairs(query).map { ($0.name, $0.value) }) { a, _ in a }
                    return .response(
                        HTTPResponse(status: Int(pairs["s"] ?? "") ?? 302, headers: ["Location": pairs["l"] ?? ""])
                    )
                }
                if request.path == "/loop" {
                    return .response(HTTPResponse(status: 302, headers: ["Location": "/loop"]))
                }
                return .response(HTTPResponse(status: 200, body: request.body))
            })
            try server.start()
            return server
        }

        /// Sends `request` over `transport` (one exchange per hop), its redirects followed as the end of an API's
        /// chain follows them.
        private static func send(
            _ request: HTTPRequest, limit: Int = 5, over transport: URLSessionTransport = URLSessionTransport()
        ) async throws -> HTTPResponse {
            try await RedirectFollower(limit: limit).follow(request) { try await transport.send($0) }
        }

        private static func redirect(_ server: LoopbackServer, to location: String, status: Int) throws -> URL {
            var request = HTTPRequest(url: server.baseURL.appendingPathComponent("to"))
            try request.appendQuery(["l": .string(location), "s": .string(String(status))])
            return request.url
        }

        @Test(arguments: [301, 302, 303, 307, 308])
        func followsRelativeLocationsKeepingTheTrailingSlash(status: Int) async throws {
            let server = try Self.makeServer()
            defer { server.stop() }

            let response = try await Self.send(
                HTTPRequest(url: try Self.redirect(server, to: "/people/", status: status))
            )

            #expect(response.status == 200)
            #expect(server.requests.last?.target == "/people/")
            #expect(response.url?.absoluteString == server.baseURL.absoluteString + "/people/")
            #expect(server.requests.allSatisfy { $0.method == "GET" })
        }

        @Test func followsAbsoluteLocationsToAnotherHost() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let other = "http://localhost:\(server.port)/elsewhere/?x=1"

            let response = try await Self.send(
                HTTPRequest(url: try Self.redirect(server, to: other, status: 302)))

            #expect(response.status == 200)
            #expect(response.url?.absoluteString == other)
            #expect(server.requests.last?.headers["Host"] == "localhost:\(server.port)")
        }

        @Test(arguments: [307, 308])
        func resendsMethodAndBodyOn307And308(status: Int) async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let body = Data(#"{"name":"Ada"}"#.utf8)

            let response = try await Self.send(
                .json(.post, url: try Self.redirect(server, to: "/people/", status: status), body: body)
            )

            #expect(response.body == body)
            let last = try #require(server.requests.last)
            #expect(last.method == "POST")
            #expect(last.body == body)
            #expect(last.headers["Content-Type"] == "application/json")
        }

        @Test func seeOtherAfterAWriteBecomesABodylessGet() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }

            _ = try await Self.send(
                .json(.post, url: try Self.redirect(server, to: "/people/7", status: 303), body: Data("{}".utf8))
            )

            let last = try #require(server.requests.last)
            #expect(last.method == "GET")
            #expect(last.body.isEmpty)
            #expect(last.headers["Content-Type"] == nil)
        }

        @Test(arguments: [301, 302])
        func doesNotTurnAWriteIntoAGetOn301Or302(status: Int) async throws {
            let server = try Self.makeServer()
            defer { server.stop() }

            let response = try await Self.send(
                .json(.put, url: try Self.redirect(server, to: "/people/7", status: status), body: Data("{}".utf8))
            )

            #expect(response.status == status)
            #expect(response.headers["Location"] == "/people/7")
            #expect(server.requests.count == 1)
        }

        @Test func dropsCredentialsWhenTheHostChangesButKeepsThemOnTheSameOrigin() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let headers: HTTPHeaders = [
                "Authorization": "Bearer secret", "Cookie": "session=1", "Proxy-Authorization": "Basic x",
                "X-Trace": "t",
            ]
            let transport = URLSessionTransport()

            _ = try await Self.send(
                HTTPRequest(url: try Self.redirect(server, to: "/same", status: 302), headers: headers), over: transport
            )
            _ = try await Self.send(
                HTTPRequest(
                    url: try Self.redirect(server, to: "http://localhost:\(server.port)/other", status: 307),
                    headers: headers
                ),
                over: transport
            )

            let requests = server.requests
            #expect(requests.count == 4)
            #expect(requests[1].headers["Authorization"] == "Bearer secret")
            #expect(requests[1].headers["Cookie"] == "session=1")
            #expect(requests[3].headers["Host"] == "localhost:\(server.port)")
            #expect(requests[3].headers["Authorization"] == nil)
            #expect(requests[3].headers["Cookie"] == nil)
            #expect(requests[3].headers["Proxy-Authorization"] == nil)
            #expect(requests[3].headers["X-Trace"] == "t")
        }

        @Test func capsTheNumberOfRedirects() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            await #expect {
                try await Self.send(HTTPRequest(url: server.baseURL.appendingPathComponent("loop")), limit: 3)
            } throws: { error in
                isCRUDError(error) { if case .tooManyRedirects(limit: 3) = $0 { true } else { false } }
            }
            #expect(server.requests.count == 4)
        }

        /// URLSession on Linux refuses a 3xx without `Location` itself (URLError -1011), before CRUDKit sees it;
        /// Apple platforms hand the response over.
        @Test func redirectWithoutLocationEndsTheChain() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let request = HTTPRequest(url: try Self.redirect(server, to: "", status: 302))

            #if os(Linux)
            await #expect { try await Self.send(request) } throws: {
                isCRUDError($0) { $0.isTransport }
            }
            #else
            #expect(try await Self.send(request).status == 302)
            #endif
            #expect(server.requests.count == 1)
        }

        @Test(arguments: [
            ("/people/", "http://h/people/"),
            ("people/", "http://h/a/people/"),
            ("../up", "http://h/up"),
            ("?page=2", "http://h/a/b?page=2"),
            ("//other:8080/x", "http://other:8080/x"),
            ("https://secure/x", "https://secure/x"),
        ])
        func resolvesLocationsAsRFC3986Says(location: String, expected: String) throws {
            let base = try #require(URL(string: "http://h/a/b"))
            #expect(RedirectPolicy.resolve(location, against: base)?.absoluteString == expected)
        }

        @Test func refusesNonHTTPLocations() throws {
            let base = try #require(URL(string: "http://h/a/b"))
            #expect(RedirectPolicy.resolve("file:///etc/passwd", against: base) == nil)
            #expect(RedirectPolicy.resolve("javascript:alert(1)", against: base) == nil)
        }
    }
}
