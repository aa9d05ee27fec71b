import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// String values are compared and hashed by their UTF-8 bytes, as object keys are: `"José"` written with `é`
/// (U+00E9) and with `e` and a combining accent (U+0301) are two documents, written as different bytes. Before,
/// `String`'s `==` (canonical equivalence) made them equal, so a user who changed only a value's normalization got
/// an empty diff and `update(from:)` sent nothing: the server kept the old bytes.
@Suite struct JSONStringValueBytesTests {
    private static let composed = "Jos\u{E9}"
    private static let decomposed = "Jose\u{301}"

    struct Person: CRUDModel, Codable, Hashable {
        static let path = "people"
        var id: Int?
        var name: String
    }

    @Test func valuesDifferingOnlyInNormalizationAreNotEqual() throws {
        #expect(Self.composed == Self.decomposed, "String's own == is canonical equivalence")
        let left: JSON = ["name": .string(Self.composed)]
        let right: JSON = ["name": .string(Self.decomposed)]
        #expect(try left.data() != right.data())
        #expect(left != right)
        #expect(JSON.string(Self.composed) != JSON.string(Self.decomposed))
        #expect(JSON.array([.string(Self.composed)]) != JSON.array([.string(Self.decomposed)]))
        #expect(Set([left, right]).count == 2)
        // The same bytes are still one value, however the string was made.
        let rebuilt = String(decoding: Array(Self.decomposed.utf8), as: UTF8.self)
        #expect(right == ["name": .string(rebuilt)])
        #expect(right.hashValue == JSON.object(["name": .string(rebuilt)]).hashValue)
    }

    @Test func aDiffSendsAChangedNormalization() {
        let original: JSON = ["id": 1, "name": .string(Self.decomposed), "nested": ["city": "Malm\u{F6}"]]
        let edited: JSON = ["id": 1, "name": .string(Self.composed), "nested": ["city": "Malmo\u{308}"]]
        let patch = edited.diff(from: original)
        #expect(patch == ["name": .string(Self.composed), "nested": ["city": "Malmo\u{308}"]])
        #expect(original.applyingMergePatch(patch) == edited)
    }

    @Test func updateFromSendsANameTheUserNormalized() async throws {
        let server = InMemoryBackend()
        server.register("people", ids: .incrementing)
        server.insert(["name": .string(Self.decomposed)], into: "people")
        let people = Person.using(API(baseURL: URL(string: "https://api.example.com/v1")!, transport: server))
        let original = try await people.read(id: 1)
        var edited = original
        edited.name = Self.composed

        _ = try await people.update(edited, from: original)

        let patches = server.recorder.requests(.patch, "people/:id")
        #expect(patches.map(\.json) == [["name": .string(Self.composed)]])
        let stored = try #require(server.record(in: "people", id: 1)?["name"].string)
        #expect(Array(stored.utf8) == Array(Self.composed.utf8))
    }
}
