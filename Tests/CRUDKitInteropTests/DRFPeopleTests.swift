import CRUDKit
import Foundation
import Testing

/// Create, read, PUT, PATCH-from-diff and delete of `/people/`, with DRF's conventions, over URLSession.
@Suite("DRF interop: people", DRFServer.enabled)
struct DRFPeopleTests {
    @Test func createAnswers201WithTheServersIDAndCreatedAt() async throws {
        try await withDRF { drf in
            let before = Date()
            let ada = try await drf.makePerson("Ada", age: 36)
            let id = try #require(ada.id)
            #expect(id > 0)
            #expect(ada.firstName == "Ada")
            #expect(ada.lastName == drf.tag)
            #expect(ada.age == 36)
            #expect(ada.email == "")
            #expect(ada.favoriteColor == nil)
            // `created_at` as DRF writes it (`2026-11-21T06:47:02.314235Z`) decoded as a Date; same machine clock.
            let createdAt = try #require(ada.createdAt)
            #expect(abs(createdAt.timeIntervalSince(before)) < 120)

            let post = try #require(drf.wire.exchanges(.post).first)
            #expect(post.path == "/people/")
            #expect(post.status == 201)
        }
    }

    @Test func createdAtDecodesWithAndWithoutFractionalSeconds() async throws {
        try await withDRF { drf in
            let ada = try await drf.makePerson("Ada")
            // The raw document of the same person, to see the exact text DRF sent.
            let raw = try await drf.api.get("people/\(try #require(ada.id))", as: JSON.self)
            let text = try #require(raw["created_at"].string)
            #expect(text.hasSuffix("Z"))
            let coding = drf.api.configuration.coding

            // With the microseconds DRF writes (six digits; absent only when they are exactly 0).
            let fractional = try coding.decode(Person.self, from: raw, at: "")
            #expect(fractional.createdAt == ada.createdAt)
            // Without them, as DRF writes a datetime whose microsecond is 0.
            var whole = raw
            let seconds = String(text.prefix(while: { $0 != "." && $0 != "Z" })) + "Z"
            whole["created_at"] = .string(seconds)
            let truncated = try coding.decode(Person.self, from: whole, at: "")
            let created = try #require(ada.createdAt)
            let expected = created.timeIntervalSince1970.rounded(.down)
            #expect(try #require(truncated.createdAt).timeIntervalSince1970 == expected)
        }
    }

    @Test func readAnswersTheStoredPerson() async throws {
        try await withDRF { drf in
            let ada = try await drf.makePerson("Ada", age: 36, favoriteColor: "green")
            let byID: Person = try await Person.read(id: try #require(ada.id))
            let fresh: Person = try await ada.read()
            #expect(byID == ada)
            #expect(fresh == ada)
            let reads = drf.wire.exchanges(.get)
            #expect(reads.count == 2)
            #expect(reads.allSatisfy { $0.path == "/people/\(ada.id ?? 0)/" && $0.status == 200 })
        }
    }

    @Test func putReplacesEveryField() async throws {
        try await withDRF { drf in
            let ada = try await drf.makePerson("Ada", age: 36)
            var changed = ada
            changed.firstName = "Augusta"
            changed.age = 37
            changed.email = "ada@example.com"
            changed.favoriteColor = "purple"
            let saved: Person = try await changed.update()
            #expect(saved.firstName == "Augusta")
            #expect(saved.age == 37)
            #expect(saved.email == "ada@example.com")
            #expect(saved.favoriteColor == "purple")
            #expect(saved.createdAt == ada.createdAt)  // read-only: sent back, ignored
            let stored: Person = try await Person.read(id: try #require(ada.id))
            #expect(stored == saved)
            let put = try #require(drf.wire.exchanges(.put).first)
            #expect(put.path == "/people/\(ada.id ?? 0)/")
            #expect(put.status == 200)
        }
    }

    @Test func patchFromDiffSendsOnlyTheChangesAndNilAsNull() async throws {
        try await withDRF { drf in
            let ada = try await drf.makePerson("Ada", age: 36, favoriteColor: "green")
            var changed = ada
            changed.age = nil
            changed.favoriteColor = nil
            changed.email = "ada@example.com"
            #expect(
                try Person.scope.patch(for: changed, from: ada)
                    == ["age": nil, "email": "ada@example.com", "favorite_color": nil])

            let saved: Person = try await changed.update(from: ada)
            #expect(saved.age == nil)
            #expect(saved.favoriteColor == nil)
            #expect(saved.email == "ada@example.com")
            #expect(saved.firstName == "Ada")
            let stored: Person = try await ada.read()
            #expect(stored == saved)
            let patch = try #require(drf.wire.exchanges(.patch).first)
            #expect(patch.path == "/people/\(ada.id ?? 0)/")
            #expect(patch.status == 200)

            // Nothing changed: nothing is sent.
            let same: Person = try await saved.update(from: saved)
            #expect(same == saved)
            #expect(drf.wire.exchanges(.patch).count == 1)
        }
    }

    @Test func deleteAnswersOkayThenReadIs404() async throws {
        try await withDRF { drf in
            let ada = try await drf.makePerson("Ada")
            let id = try #require(ada.id)
            let okay: Okay = try await ada.delete()
            #expect(okay == Okay())
            let delete = try #require(drf.wire.exchanges(.delete).first)
            #expect(delete.path == "/people/\(id)/")
            #expect(delete.status == 204)

            let error = await #expect(throws: CRUDError.self) { () async throws -> Person in
                try await Person.read(id: id)
            }
            #expect(error?.isNotFound == true)
            #expect(error?.serverMessage == "No Person matches the given query.")
            let secondDelete = await #expect(throws: CRUDError.self) { () async throws -> Okay in
                try await Person.delete(id: id)
            }
            #expect(secondDelete?.status == 404)
        }
    }
}
