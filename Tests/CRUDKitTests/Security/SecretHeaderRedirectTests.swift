@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

extension NetworkTests {
    /// Every header that carries a credential — a ``TokenRefresher``'s header, headers listed in the API's
    /// ``Redaction``, the common API-key headers — stays with its origin, and a body is not resent to another
    /// origin by a 307 or 308 (issue 13, item 1).
    @Suite struct SecretHeaderRedirectTests {
        /// `/hop?to=<url>&status=<code>` redirects there; anything else answers 200.
        private static func makeServer() throws -> LoopbackServer {
            let server = LoopbackServer(synchronousHandler: { request in
                let query = Dictionary(FormParameters.decodePairs(request.query ?? "").map { ($0.name, $0.value) }) {
                    first, _ in first
                }
                guard request.path == "/hop" else { return .response(HTTPResponse(status: 200)) }
                return .response(
                    HTTPResponse(status: Int(query["status"] ?? "") ?? 302, headers: ["Location": query["to"] ?? ""]))
            })
            try server.start()
            return server
        }

        private static func hop(_ server: LoopbackServer, to target: String, status: Int) throws -> URL {
            var request = HTTPRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/hop")))
            try request.appendQuery(["to": .string(target), "status": .string(String(status))])
            return request.url
        }

        private static func api() -> API {
            let refresher = TokenRefresher(token: "tok-s3cret", headerName: "X-Auth-Token", scheme: "") { _ in "new" }
            return API(
                configuration: APIConfiguration(
                    baseURL: nil,
                    redaction: Redaction(headers: ["X-Tenant-Secret"]))
            ).with { $0.middleware.insert(refresher, after: .retry) }
        }

        /// 302 GET, 307 GET and 307 POST, to another host (`localhost`) and to another port (a second server).
        @Test(arguments: [(302, HTTPMethod.get), (307, .get), (307, .post)], [false, true])
        func secretHeadersAndBodyStayWithTheirOrigin(redirect: (Int, HTTPMethod), otherPort: Bool) async throws {
            let first = try Self.makeServer()
            defer { first.stop() }
            let second = try Self.makeServer()
            defer { second.stop() }
            let target =
                otherPort ? "http://127.0.0.1:\(second.port)/landing" : "http://localhost:\(first.port)/landing"
            let (status, method) = redirect
            let request = HTTPRequest(
                method: method, url: try Self.hop(first, to: target, status: status),
                headers: ["X-API-Key": "key-s3cret", "X-Tenant-Secret": "tenant-s3cret", "X-Trace": "kept"],
                body: method == .post ? .data(Data("password=body-s3cret".utf8)) : .none)

            _ = try? await Self.api().send(request)

            let landed = (first.requests + second.requests).filter { $0.path == "/landing" }
            #expect(first.requests.first?.headers["X-Auth-Token"] == "tok-s3cret")
            #expect(first.requests.first?.headers["X-Tenant-Secret"] == "tenant-s3cret")
            if method == .post {
                #expect(landed.isEmpty, "a 307 POST body was resent to another origin")
            } else {
                let next = try #require(landed.first)
                #expect(next.headers["X-Auth-Token"] == nil)
                #expect(next.headers["X-Tenant-Secret"] == nil)
                #expect(next.headers["X-API-Key"] == nil)
                #expect(next.headers["X-Trace"] == "kept")
            }
        }

        /// A header the API's `Redaction` hides by its name alone (`X-Tenant-Secret`, `X-Custom-Auth`,
        /// `X-Session-Id`; with the API's own secret words, `X-Card-Pin`) is hidden in logs and also stays with its
        /// origin, as README says of every header the redaction hides. Before, only listed names were dropped.
        @Test(arguments: [false, true])
        func headersWhoseNameNamesASecretStayWithTheirOrigin(customWords: Bool) async throws {
            let first = try Self.makeServer()
            defer { first.stop() }
            let second = try Self.makeServer()
            defer { second.stop() }
            let redaction =
                customWords ? Redaction(secretNames: Redaction.defaultSecretNames.union(["pin"])) : .standard
            let api = API(configuration: APIConfiguration(baseURL: nil, redaction: redaction))
            var headers: HTTPHeaders = [
                "X-Tenant-Secret": "tenant-s3cret", "X-Custom-Auth": "auth-s3cret", "X-Session-Id": "session-s3cret",
                "X-Trace": "kept", "X-Request-Id": "kept-too",
            ]
            if customWords { headers["X-Card-Pin"] = "pin-s3cret" }
            let request = HTTPRequest(
                url: try Self.hop(first, to: "http://127.0.0.1:\(second.port)/landing", status: 302), headers: headers)

            _ = try await api.send(request)

            #expect(first.requests.first?.headers["X-Tenant-Secret"] == "tenant-s3cret")
            let next = try #require(second.requests.first { $0.path == "/landing" })
            for name in ["X-Tenant-Secret", "X-Custom-Auth", "X-Session-Id", "X-Card-Pin"] {
                #expect(next.headers[name] == nil, "\(name) went to another origin")
            }
            #expect(next.headers["X-Trace"] == "kept")
            #expect(next.headers["X-Request-Id"] == "kept-too")
        }

        /// The policy drops headers named like secrets even from a request no `API` prepared (a transport used on
        /// its own), and keeps them on the same origin.
        @Test func policyDropsHeadersNamedLikeSecrets() throws {
            let request = HTTPRequest(
                url: try #require(URL(string: "http://api.example.com/a")),
                headers: ["X-Service-Token": "s3cret-token", "X-Client-Secret": "s3cret", "X-Trace": "kept"])
            let away = HTTPResponse(status: 302, headers: ["Location": "http://other.example.com/b"])
            let next = try #require(RedirectPolicy.nextRequest(after: away, to: request))
            #expect(next.headers["X-Service-Token"] == nil)
            #expect(next.headers["X-Client-Secret"] == nil)
            #expect(next.headers["X-Trace"] == "kept")
            let same = HTTPResponse(status: 302, headers: ["Location": "/b"])
            #expect(RedirectPolicy.nextRequest(after: same, to: request)?.headers["X-Service-Token"] == "s3cret-token")
        }

        /// The policy itself, as another transport calls it.
        @Test func policyDropsTheRequestsSensitiveHeaders() throws {
            var request = HTTPRequest(
                method: .post, url: try #require(URL(string: "http://api.example.com/a")),
                headers: ["X-Secret": "s", "X-Trace": "kept"], body: .data(Data("x".utf8)))
            request.sensitiveHeaderNames = ["x-secret"]
            let redirect = HTTPResponse(status: 307, headers: ["Location": "http://other.example.com/b"])
            #expect(RedirectPolicy.nextRequest(after: redirect, to: request) == nil)
            let allowed = try #require(
                RedirectPolicy.nextRequest(after: redirect, to: request, resendingBodyAcrossOrigins: true))
            #expect(allowed.headers["X-Secret"] == nil)
            #expect(allowed.headers["X-Trace"] == "kept")
            #expect(allowed.body == request.body)
            let same = HTTPResponse(status: 307, headers: ["Location": "/b"])
            #expect(RedirectPolicy.nextRequest(after: same, to: request)?.headers["X-Secret"] == "s")
        }
    }
}
