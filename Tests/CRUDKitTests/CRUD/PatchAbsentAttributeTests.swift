import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// `JSONAttribute.absent` is never sent: a `PATCH` built by `update(from:)` (or `Versioned.updateChanges()`) leaves
/// an absent key out, so the server keeps its value; `.null` still clears the field. Before, the diff wrote every key
/// missing from the new value as `null`: `nickname = .absent` sent `{"nickname": null}` and cleared it (issue 31).
@Suite struct PatchAbsentAttributeTests {
    struct Person: CRUDModel, Codable, Hashable {
        static let path = "people"
        var id: Int?
        var name: String
        var nickname: JSONAttribute<String>
        var email: String?
    }

    /// Every state a tri-state attribute can be in, with two different values.
    static let states: [JSONAttribute<String>] = [.absent, .null, .value("Countess"), .value("Ada")]

    /// Every (before, after) pair of states.
    static let transitions: [(JSONAttribute<String>, JSONAttribute<String>)] = states.flatMap { before in
        states.map { (before, $0) }
    }

    private static let base = URL(string: "https://api.example.com/v1")!

    /// A backend holding person 1 with `nickname` stored as `state` says (no key for `.absent`).
    private static func backend(nickname state: JSONAttribute<String>) -> InMemoryBackend {
        let backend = InMemoryBackend()
        backend.register("people", ids: .incrementing)
        var object: JSON = ["name": "Ada", "email": "ada@example.com"]
        switch state {
        case .absent: break
        case .null: object["nickname"] = .null
        case .value(let value): object["nickname"] = .string(value)
        }
        backend.insert(object, into: "people")
        return backend
    }

    /// The merge patch that moving `nickname` from `before` to `after` must send: nothing for `.absent` or an
    /// unchanged state, `null` for `.null`, the value otherwise.
    private static func expectedPatch(_ before: JSONAttribute<String>, _ after: JSONAttribute<String>) -> JSON {
        switch after {
        case .absent: return [:]
        case _ where after == before: return [:]
        case .null: return ["nickname": nil]
        case .value(let value): return ["nickname": .string(value)]
        }
    }

    @Test(arguments: transitions)
    func aPatchSendsOnlyWhatTheAttributeSays(
        before: JSONAttribute<String>, after: JSONAttribute<String>
    )
        async throws
    {
        let server = Self.backend(nickname: before)
        let people = Person.using(API(baseURL: Self.base, transport: server))
        let original = try await people.read(id: 1)
        #expect(original.nickname == before)
        var edited = original
        edited.nickname = after

        #expect(try people.patch(for: edited, from: original) == Self.expectedPatch(before, after))
        _ = try await people.update(edited, from: original)

        let patches = server.recorder.requests(.patch, "people/:id")
        let expected = Self.expectedPatch(before, after)
        if expected == [:] {
            #expect(patches.isEmpty, "sent \(patches.map(\.json))")
        } else {
            #expect(patches.map(\.json) == [expected])
        }
        let stored = try #require(server.record(in: "people", id: 1))
        switch after {
        case .absent:
            // The stored value stays, whatever it was (an absent key stays absent, null stays null).
            #expect(
                stored.value(forKey: "nickname")
                    == Self.backend(nickname: before).record(in: "people", id: 1)?
                    .value(forKey: "nickname"))
        case .null: #expect(stored["nickname"] == .null)
        case .value(let value): #expect(stored["nickname"] == .string(value))
        }
        #expect(stored["email"] == "ada@example.com")
    }

    @Test func aNilOptionalIsStillSentAsNullBesideAnAbsentAttribute() async throws {
        let server = Self.backend(nickname: .value("Countess"))
        let people = Person.using(API(baseURL: Self.base, transport: server))
        let original = try await people.read(id: 1)
        var edited = original
        edited.nickname = .absent
        edited.email = nil

        _ = try await people.update(edited, from: original)

        #expect(server.recorder.requests(.patch, "people/:id").map(\.json) == [["email": nil]])
        #expect(server.record(in: "people", id: 1)?["nickname"] == "Countess")
        #expect(server.record(in: "people", id: 1)?["email"] == .null)
    }

    @Test func versionedUpdateChangesLeavesAnAbsentAttributeAlone() async throws {
        let server = Self.backend(nickname: .value("Countess"))
        let people = Person.using(API(baseURL: Self.base, transport: server))
        var tagged = try await people.readTagged(id: 1)
        tagged.nickname = .absent
        tagged.name = "Ada L."

        _ = try await tagged.updateChanges()

        #expect(server.recorder.requests(.patch, "people/:id").map(\.json) == [["name": "Ada L."]])
        #expect(server.record(in: "people", id: 1)?["nickname"] == "Countess")
    }

    @Test func aDiffCanLeaveRemovedKeysAlone() {
        let original: JSON = ["a": 1, "b": 2, "nested": ["c": 3, "d": 4]]
        let edited: JSON = ["a": 1, "nested": ["c": 5]]
        #expect(edited.diff(from: original, clearsRemovedKeys: false) == ["nested": ["c": 5]])
        #expect(edited.diff(from: original, recursive: false, clearsRemovedKeys: false) == ["nested": ["c": 5]])
        #expect(edited.diff(from: original) == ["b": nil, "nested": ["c": 5, "d": nil]])
        #expect(
            original.applyingMergePatch(edited.diff(from: original, clearsRemovedKeys: false))
                == ["a": 1, "b": 2, "nested": ["c": 5, "d": 4]])
    }
}
