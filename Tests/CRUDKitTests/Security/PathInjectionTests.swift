import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// Ids and parent ids from untrusted input stay exactly one encoded path segment, as the server receives it, or
    /// are refused before anything is sent; they can never reach another collection or add a query or fragment.
    @Suite struct PathInjectionTests {
        struct Vault: CRUDModel, Codable, Hashable {
            static let path = "vaults"
            var id: String?
            var name: String
        }

        struct Entry: CRUDModel, Codable, Hashable {
            static let path = "entries"
            var id: String?
            var name: String
        }

        /// Hostile ids and the segment each must become on the wire.
        static let cases: [(id: String, segment: String)] = [
            ("../admin", "..%2Fadmin"),
            ("..", "%2E%2E"),
            (".", "%2E"),
            ("a/b", "a%2Fb"),
            ("%2e%2e", "%252e%252e"),
            ("%2F", "%252F"),
            ("?x=1", "%3Fx%3D1"),
            ("#frag", "%23frag"),
            ("a b", "a%20b"),
            ("a;b", "a%3Bb"),
            ("a\\b", "a%5Cb"),
            ("é", "%C3%A9"),
            ("😀", "%F0%9F%98%80"),
            ("\u{0}\r\n", "%00%0D%0A"),
            ("12", "12"),
        ]

        /// Answers every request with the vault or entry it names (so decoding succeeds) and records it.
        private static func makeServer() throws -> LoopbackServer {
            let server = LoopbackServer(synchronousHandler: { _ in
                .response(
                    HTTPResponse(
                        status: 200, headers: ["Content-Type": "application/json"],
                        body: Data(#"{"id": "x", "name": "n"}"#.utf8)))
            })
            try server.start()
            return server
        }

        private static func makeAPI(_ server: LoopbackServer) -> API {
            API(baseURL: server.baseURL.appendingPathComponent("v1"))
        }

        @Test(arguments: cases)
        func anIdIsOneEncodedSegmentForEveryOperation(id: String, segment: String) async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let vaults = Vault.using(Self.makeAPI(server))
            let vault = Vault(id: id, name: "n")

            _ = try await vaults.read(id: id)
            _ = try await vaults.update(vault)
            try await vaults.delete(id: id)

            let targets = server.requests.map(\.target)
            #expect(targets == Array(repeating: "/v1/vaults/\(segment)", count: 3))
            #expect(server.requests.map(\.method) == ["GET", "PUT", "DELETE"])
        }

        @Test(arguments: cases)
        func aParentIdIsOneEncodedSegment(id: String, segment: String) async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let api = Self.makeAPI(server)
            let entries = Entry.scoped(to: Vault(id: id, name: "n"), api: api)

            _ = try await entries.read(id: "e1")
            _ = try await entries.create(Entry(id: nil, name: "new"))

            #expect(
                server.requests.map(\.target) == ["/v1/vaults/\(segment)/entries/e1", "/v1/vaults/\(segment)/entries"])
        }

        @Test func anEmptyIdOrParentIdIsRefusedBeforeSending() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let api = Self.makeAPI(server)
            let isInvalidRequest: @Sendable (any Error) -> Bool = { error in
                if case .invalidRequest = error as? CRUDError { true } else { false }
            }

            await #expect(performing: { try await Vault.using(api).read(id: "") }, throws: isInvalidRequest)
            await #expect(
                performing: { try await Vault.using(api).update(Vault(id: "", name: "n")) }, throws: isInvalidRequest)
            await #expect(
                performing: { try await Vault.using(api).update(Vault(id: nil, name: "n")) }, throws: isInvalidRequest)
            await #expect(
                performing: { try await Entry.scoped(to: Vault(id: "", name: "n"), api: api).read(id: "e1") },
                throws: isInvalidRequest)
            await #expect(
                performing: { try await Entry.scoped(to: Vault(id: nil, name: "n"), api: api).list() },
                throws: isInvalidRequest)
            #expect(server.connectionsAccepted == 0)
        }
    }
}
