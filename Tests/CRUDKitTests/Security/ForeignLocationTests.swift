import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

extension NetworkTests {
    /// A write answered with an empty body is read back from its `Location`, with the API's credentials; a
    /// `Location` on another origin is not followed, as a `next` page link on another origin is not. Before, a
    /// server (hostile, or misconfigured behind a proxy) that answered `201` with `Location: https://elsewhere/…`
    /// received the API's `Authorization` and `X-API-Key` at `elsewhere`.
    @Suite struct ForeignLocationTests {
        struct Member: CRUDModel, Codable, Hashable {
            static let path = "people"
            var id: Int?
            var name: String
        }

        /// A server that answers reads of `/people/1` with a member, and every write with `status` and
        /// `Location: location` and no body.
        private static func server(
            writeStatus status: Int, location: @escaping @Sendable () -> String
        ) throws
            -> LoopbackServer
        {
            let server = LoopbackServer(synchronousHandler: { request in
                if request.method == "GET" {
                    return .response(
                        HTTPResponse(
                            status: 200, headers: ["Content-Type": "application/json"],
                            body: Data(#"{"id": 1, "name": "Ada"}"#.utf8)))
                }
                return .response(HTTPResponse(status: status, headers: ["Location": location()]))
            })
            try server.start()
            return server
        }

        private static func api(_ server: LoopbackServer) -> API {
            API(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)"), conventions: .standard,
                token: "tok-s3cret",
                headers: ["X-API-Key": "key-s3cret"])
        }

        @Test func aCreatedValueIsNotReadFromAnotherOrigin() async throws {
            let foreign = try Self.server(writeStatus: 200) { "" }
            defer { foreign.stop() }
            let home = try Self.server(writeStatus: 201) { "http://localhost:\(foreign.port)/people/1" }
            defer { home.stop() }

            let error = await #expect(throws: CRUDError.self) {
                try await Member.using(Self.api(home)).create(Member(name: "Ada"))
            }

            #expect(foreign.requests.isEmpty, "the API's credentials went to another origin")
            #expect(home.requests.map(\.method) == ["POST"])
            guard case .writeAccepted(let response, _)? = error else {
                Issue.record("expected writeAccepted, got \(String(describing: error))")
                return
            }
            #expect(response.status == 201)
            let text = "\(try #require(error))"
            #expect(text.contains("not followed"), "\(text)")
            #expect(!text.contains("tok-s3cret"))
        }

        @Test func anUpdatedValueIsReadBackByIdFromTheAPIsOwnOrigin() async throws {
            let foreign = try Self.server(writeStatus: 200) { "" }
            defer { foreign.stop() }
            let home = try Self.server(writeStatus: 204) { "http://127.0.0.1:\(foreign.port)/people/1" }
            defer { home.stop() }

            let saved = try await Member.using(Self.api(home)).update(Member(id: 1, name: "Ada L."))

            #expect(saved == Member(id: 1, name: "Ada"))
            #expect(foreign.requests.isEmpty)
            #expect(home.requests.map(\.method) == ["PUT", "GET"])
            #expect(home.requests.last?.path == "/people/1")
            #expect(home.requests.last?.headers["Authorization"] == "Bearer tok-s3cret")
        }

        @Test func aLocationOnTheSameOriginIsStillFollowed() async throws {
            let home = try Self.server(writeStatus: 201) { "/people/1" }
            defer { home.stop() }

            let made = try await Member.using(Self.api(home)).create(Member(name: "Ada"))

            #expect(made == Member(id: 1, name: "Ada"))
            #expect(home.requests.map(\.method) == ["POST", "GET"])
            #expect(home.requests.last?.headers["X-API-Key"] == "key-s3cret")
        }
    }
}
