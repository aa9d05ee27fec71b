import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

extension NetworkTests {
    /// An API's cookie jar, through the end of its chain and `URLSessionTransport`: what `Set-Cookie` stores, what
    /// goes back in `Cookie`, and what does not.
    @Suite struct CookieJarTests {
        /// `/login` sets three cookies on three header lines (one for `/private` only that expires in 2099, one for
        /// HTTPS only),
        /// `/logout` expires one; every other path answers 200.
        private static func makeServer() throws -> LoopbackServer {
            let server = LoopbackServer(synchronousHandler: { request in
                var headers = HTTPHeaders()
                switch request.path {
                case "/login":
                    headers.add(name: "Set-Cookie", value: "session=abc; Path=/")
                    headers.add(
                        name: "Set-Cookie", value: "scoped=1; Path=/private; Expires=Wed, 21 Oct 2099 07:28:00 GMT")
                    headers.add(name: "Set-Cookie", value: "tls=1; Path=/; Secure")
                case "/people/a/login":
                    headers.add(name: "Set-Cookie", value: "person=a; Path=/people/a")
                case "/logout":
                    headers.add(
                        name: "Set-Cookie", value: "session=gone; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT")
                default:
                    break
                }
                return .response(HTTPResponse(status: 200, headers: headers))
            })
            try server.start()
            return server
        }

        @Test func storesEverySetCookieLineAndSendsThemBackByPath() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = ThroughAPI()
            _ = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("login")))
            _ = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("public")))
            _ = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("private/page")))

            let requests = server.requests
            #expect(requests.map(\.path) == ["/login", "/public", "/private/page"])
            #expect(requests[0].headers["Cookie"] == nil)
            #expect(
                requests[1].headers["Cookie"] == "session=abc",
                "a cookie scoped to /private went to /public, or a Secure one over plain HTTP")
            let sent = Set(
                (requests[2].headers["Cookie"] ?? "").split(separator: ";").map {
                    $0.trimmingCharacters(in: .whitespaces)
                })
            #expect(sent == ["session=abc", "scoped=1"])
        }

        @Test func anExpiredCookieIsForgotten() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = ThroughAPI()
            for path in ["login", "logout", "after"] {
                _ = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent(path)))
            }
            #expect(server.requests.last?.headers["Cookie"] == nil)
        }

        /// Paths are matched as sent: the one segment `a%2Fb` (an id with a slash) is not a path below `/people/a`.
        @Test func pathsAreMatchedPercentEncoded() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = ThroughAPI()
            let people = server.baseURL.appendingPathComponent("people")
            _ = try await transport.send(HTTPRequest(url: people.appendingPathComponent("a/login")))
            _ = try await transport.send(
                HTTPRequest(url: try #require(URL(string: people.absoluteString + "/a%2Fb"))))
            _ = try await transport.send(HTTPRequest(url: people.appendingPathComponent("a/b")))
            let requests = server.requests
            #expect(requests.count == 3)
            #expect(requests[1].headers["Cookie"] == nil, "a cookie for /people/a went to the id a/b")
            #expect(requests[2].headers["Cookie"] == "person=a")
        }

        @Test func aRequestsOwnCookieHeaderWinsOverTheJar() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = ThroughAPI()
            _ = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("login")))
            _ = try await transport.send(
                HTTPRequest(url: server.baseURL.appendingPathComponent("mine"), headers: ["Cookie": "own=1"]))
            #expect(server.requests.last?.headers["Cookie"] == "own=1")
        }

        @Test func eachAPIHasItsOwnJar() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            _ = try await ThroughAPI().send(HTTPRequest(url: server.baseURL.appendingPathComponent("login")))
            _ = try await ThroughAPI().send(HTTPRequest(url: server.baseURL.appendingPathComponent("other")))
            #expect(server.requests.last?.headers["Cookie"] == nil)
        }

        /// A transport on its own keeps no cookies: it sends the headers it is given.
        @Test func aTransportAloneKeepsNoCookies() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = URLSessionTransport()
            let login = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("login")))
            _ = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("public")))
            #expect(login.headers["Set-Cookie"] != nil)
            #expect(server.requests.last?.headers["Cookie"] == nil)
        }
    }
}

@Suite struct CookiePathMatchTests {
    @Test(arguments: [
        ("/", "/", true), ("/a", "/", true), ("/private", "/private", true), ("/private/page", "/private", true),
        ("/private/page", "/private/", true), ("/privateer", "/private", false), ("/public", "/private", false),
        ("/", "/private", false), ("/a/b", "", true),
    ])
    func pathMatching(path: String, cookiePath: String, matches: Bool) {
        #expect(CookieJar.pathMatches(path, cookiePath) == matches)
    }
}
