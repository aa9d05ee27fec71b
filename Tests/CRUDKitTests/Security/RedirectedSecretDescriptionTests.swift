import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// Issue 13, item 11: a secret query value kept through a 301 reached a 500 error's description, and a transport
    /// failure printed its failing URL with password and token.
    @Suite struct RedirectedSecretDescriptionTests {
        /// `/start` redirects (301) to `/final` with the same query; `/final` answers 500; `/broken` closes early.
        private static func makeServer() throws -> LoopbackServer {
            let server = LoopbackServer(synchronousHandler: { request in
                switch request.path {
                case "/start":
                    return .response(
                        HTTPResponse(status: 301, headers: ["Location": "/final?" + (request.query ?? "")]))
                case "/broken":
                    return .fault(.closeBeforeStatusLine)
                default:
                    return .response(HTTPResponse(status: 500, body: Data("internal error".utf8)))
                }
            })
            try server.start()
            return server
        }

        private static func failure(of call: () async throws -> some Any) async -> CRUDError? {
            do { _ = try await call() } catch let error as CRUDError { return error } catch {}
            return nil
        }

        @Test func aSecretQueryValueKeptThroughA301IsHiddenInThe500sDescription() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let api = API(
                configuration: APIConfiguration(
                    baseURL: server.baseURL, redaction: Redaction(queryParameters: ["sessionKey"])))

            let error = try #require(
                await Self.failure {
                    try await api.get("start", query: ["token": "tok-s3cret", "sessionKey": "sk-s3cret", "page": "2"])
                })

            #expect(error.status == 500)
            #expect(error.response?.url?.path == "/final", "the redirect was followed")
            let texts = DescriptionRedactionTests.renderings(of: error)
            DescriptionRedactionTests.expectHidden(["tok-s3cret", "sk-s3cret"], in: texts)
            DescriptionRedactionTests.expectShown(
                ["500", "127.0.0.1", "/final", "page=2", "internal error"], in: texts)
        }

        @Test func aRealTransportFailurePrintsWithoutTheURLsSecrets() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let base = try #require(URL(string: "http://user:pw-s3cret@127.0.0.1:\(server.port)"))
            let api = API(configuration: APIConfiguration(baseURL: base))

            let error = try #require(await Self.failure { try await api.get("broken", query: ["token": "tok-s3cret"]) })

            let texts = DescriptionRedactionTests.renderings(of: error)
            DescriptionRedactionTests.expectHidden(["pw-s3cret", "tok-s3cret"], in: texts)
            #expect(texts.allSatisfy { !$0.isEmpty })
        }
    }
}
