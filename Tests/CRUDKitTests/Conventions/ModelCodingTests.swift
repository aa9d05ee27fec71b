import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// A model whose `CodingKeys` spell the wire keys chooses its own coding; the API's snake_case conversion would
/// break them (issue 15, item 16).
@Suite struct ModelCodingTests {
    /// Keys as the server spells them, whatever the API converts.
    struct Badge: CRUDModel, Codable, Hashable {
        static let path = "badges"
        static func conventions(from api: APIConventions) -> APIConventions { api.with { $0.coding = .camelCase } }
        var id: Int?
        var idNumber: String
        var holderName: String

        enum CodingKeys: String, CodingKey {
            case id
            case idNumber = "id_Number"
            case holderName = "holder"
        }
    }

    /// The same model following the API's coding (snake_case conversion).
    struct PlainBadge: CRUDModel, Codable, Hashable {
        static let path = "badges"
        var id: Int?
        var idNumber: String
        var holderName: String

        enum CodingKeys: String, CodingKey {
            case id
            case idNumber = "id_Number"
            case holderName = "holder"
        }
    }

    private static let base = URL(string: "https://api.example.com")!

    private static func server() -> InMemoryBackend {
        let backend = InMemoryBackend()
        backend.register("badges")
        backend.insert(["id_Number": "A-7", "holder": "Ada"], into: "badges")
        return backend
    }

    @Test func theModelsCodingReadsAndWritesItsOwnKeys() async throws {
        let server = Self.server()
        let badges = Badge.using(API(baseURL: Self.base, transport: server))  // the API converts snake_case

        let read = try await badges.read(id: 1)
        let made = try await badges.create(Badge(idNumber: "B-2", holderName: "Grace"))
        var changed = made
        changed.holderName = "Grace H."
        let patched = try await badges.update(changed, from: made)
        let listed = try await badges.list()

        #expect(read == Badge(id: 1, idNumber: "A-7", holderName: "Ada"))
        #expect(made == Badge(id: 2, idNumber: "B-2", holderName: "Grace"))
        #expect(patched.holderName == "Grace H.")
        #expect(listed.map(\.idNumber) == ["A-7", "B-2"])
        #expect(server.recorder.requests(.post, "badges").first?.json == ["id_Number": "B-2", "holder": "Grace"])
        #expect(server.recorder.requests(.patch, "badges/2").first?.json == ["holder": "Grace H."])
    }

    @Test func withoutItTheAPIsConversionMissesTheKeys() async throws {
        let server = Self.server()
        let badges = PlainBadge.using(API(baseURL: Self.base, transport: server))

        await #expect(throws: CRUDError.self) { try await badges.read(id: 1) }
    }
}
