import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// The cookie rules end to end, through an API over `URLSessionTransport` and a real server: the server at `127.0.0.1`
    /// tries to plant cookies for `localhost` (the same server under another host name), to inject a header through
    /// a cookie, and to flood the jar.
    @Suite struct CookieJarLoopbackTests {
        /// `/set` answers with the `Set-Cookie` lines of the `case` query value; every other path answers 200.
        private static func makeServer() throws -> LoopbackServer {
            let server = LoopbackServer(synchronousHandler: { request in
                var headers = HTTPHeaders()
                if request.path == "/set" {
                    for line in setCookieLines(request.query ?? "") { headers.add(name: "Set-Cookie", value: line) }
                }
                return .response(HTTPResponse(status: 200, headers: headers))
            })
            try server.start()
            return server
        }

        private static func setCookieLines(_ query: String) -> [String] {
            switch query {
            case "case=domains":
                [
                    "planted=1; Domain=localhost; Path=/", "dots=1; Domain=.0.0.1; Path=/",
                    "ip=1; Domain=0.0.1; Path=/",
                    "own=1; Path=/",
                ]
            // (A NUL in a response header fails the whole exchange in FoundationNetworking; the unit tests try it.)
            case "case=inject": ["a=b\rX-Injected: 1; Path=/", "ok=1; Path=/"]
            case "case=control": ["c=d\u{1}e; Path=/", "ok=1; Path=/"]
            case "case=flood": (0..<1000).map { "c\($0)=1; Path=/" }
            default: []
            }
        }

        @Test func aServerCannotPlantCookiesForAnotherHost() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = ThroughAPI()
            _ = try await transport.send(
                HTTPRequest(url: try #require(URL(string: "\(server.baseURL)/set?case=domains"))))
            _ = try await transport.send(
                HTTPRequest(url: try #require(URL(string: "http://localhost:\(server.port)/other"))))
            _ = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("again")))

            let requests = server.requests
            #expect(requests.count == 3)
            #expect(requests[1].headers["Host"] == "localhost:\(server.port)")
            #expect(requests[1].headers["Cookie"] == nil, "a cookie set by 127.0.0.1 reached localhost")
            #expect(requests[2].headers["Cookie"] == "own=1", "only the host-only cookie may come back")
        }

        /// The issue's `a=b\rX-Injected: 1`, and a value with the control character 0x01: only the clean cookie
        /// comes back, and neither the header nor the byte reaches the wire.
        @Test(arguments: ["inject", "control"])
        func aCookieCannotInjectAHeader(kind: String) async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = ThroughAPI()
            _ = try await transport.send(
                HTTPRequest(url: try #require(URL(string: "\(server.baseURL)/set?case=\(kind)"))))
            let answer = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("next")))

            // Before the fix the CR went out inside `Cookie`; the server could not parse that request at all.
            #expect(answer.status == 200, "the server refused the next request")
            #expect(server.requests.map(\.path) == ["/set", "/next"])
            let next = try #require(server.requests.last)
            #expect(next.headers["Cookie"] == "ok=1")
            #expect(next.headers["X-Injected"] == nil)
            let raw = String(decoding: next.raw, as: UTF8.self)
            #expect(!raw.contains("X-Injected"), "the cookie's CR reached the wire")
            #expect(!next.raw.contains(1), "the cookie's control character reached the wire")
        }

        @Test func aFloodOfCookiesIsCapped() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = ThroughAPI()
            _ = try await transport.send(
                HTTPRequest(url: try #require(URL(string: "\(server.baseURL)/set?case=flood"))))
            _ = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("next")))

            let cookie = try #require(server.requests.last?.headers["Cookie"])
            let names = Set(cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(names == Set((950..<1000).map { "c\($0)=1" }))
        }
    }
}
