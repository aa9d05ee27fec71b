import CRUDKit
import Foundation
import Testing

/// A PUT clears what the user cleared: DRF keeps the stored value of a key a PUT leaves out (the serializer saves
/// only the fields it was given), so `nil` optionals must go out as `null` (issue 15, item 1).
@Suite("DRF interop: PUT clears nil fields", DRFServer.enabled)
struct DRFPutNullTests {
    /// The same person for a server where PUT must not carry `null`s: it keeps the old values.
    struct PartialPerson: CRUDModel, Codable, Hashable {
        static let path = "people"
        static func conventions(from api: APIConventions) -> APIConventions { api.with { $0.putNilEncoding = .omit } }
        var id: Int?
        var firstName: String
        var lastName: String
        var age: Int?
        var favoriteColor: String?
    }

    @Test func putWithNilClearsTheStoredValue() async throws {
        try await withDRF { drf in
            let ada = try await drf.makePerson("Ada", age: 36, favoriteColor: "green")
            var changed = ada
            changed.favoriteColor = nil
            changed.age = nil

            let saved: Person = try await changed.update()

            #expect(saved.favoriteColor == nil)
            #expect(saved.age == nil)
            let stored: Person = try await ada.read()
            #expect(stored.favoriteColor == nil)
            #expect(stored.age == nil)
            #expect(stored.firstName == "Ada")
            let put = try #require(drf.wire.exchanges(.put).first)
            #expect(put.status == 200)
        }
    }

    @Test func leavingTheKeyOutKeepsTheOldValueOnDRF() async throws {
        // What happened before the fix, and what a model that opts out gets: DRF keeps the stored value.
        try await withDRF { drf in
            let ada = try await drf.makePerson("Ada", age: 36, favoriteColor: "green")
            let people = PartialPerson.using(drf.api)
            var partial = try await people.read(id: try #require(ada.id))
            partial.favoriteColor = nil

            let saved = try await people.update(partial)

            #expect(saved.favoriteColor == "green")
            #expect(saved.age == 36)
        }
    }
}
