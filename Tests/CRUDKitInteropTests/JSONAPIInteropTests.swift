import CRUDKit
import Foundation
import Testing

/// The `.jsonAPI` preset against djangorestframework-jsonapi 8.1 (`/jsonapi/…` of the interop server,
/// `Tests/Interop/drf/people/jsonapi.py`): `API(baseURL:conventions: .jsonAPI)` and nothing else walks create, every
/// page of a list, read, PATCH (a change, and a nullable field to `null`), field errors from `source.pointer`, a
/// nested create and list, delete and a 404.
@Suite("DRF interop: JSON:API", DRFServer.enabled)
struct JSONAPIInteropTests {
    private func api() throws -> API {
        API(baseURL: try DRFServer.baseURL().appendingPathComponent("jsonapi"), conventions: .jsonAPI)
    }

    @Test func walksEveryOperationWithThePresetAlone() async throws {
        let api = try api()
        let people = JSONAPIPerson.using(api)
        let family = "Walk-\(UUID().uuidString.prefix(8))"

        // Create, and every page of a list (12 people, 5 per page).
        var made: [JSONAPIPerson] = []
        for index in 1...12 {
            made.append(try await people.create(JSONAPIPerson(firstName: "P\(index)", lastName: family, age: index)))
        }
        let query: FormParameters = ["filter[last_name]": .string(family), "page[size]": "5"]
        let first = try await people.page(query)
        #expect(first.total == 12 && first.items.count == 5 && first.next != nil)
        var walked: [Int] = []
        for try await person in people.all(query) { walked.append(try #require(person.id)) }
        #expect(walked == made.compactMap(\.id))

        // Read, then PATCH a change and a nullable field to null.
        let id = try #require(made.first?.id)
        var ada = try await people.read(id: id)
        #expect(ada.firstName == "P1" && ada.age == 1 && ada.createdAt != nil)
        var edited = ada
        edited.favoriteColor = "green"
        ada = try await people.update(edited, from: ada)
        #expect(ada.favoriteColor == "green")
        edited = ada
        edited.favoriteColor = nil
        edited.age = nil
        let cleared = try await people.update(edited, from: ada)
        #expect(cleared.favoriteColor == nil && cleared.age == nil && cleared.firstName == "P1")

        // update() (replace) is a PATCH with every attribute: JSON:API has no PUT.
        var renamed = cleared
        renamed.firstName = "Ada"
        let replaced = try await people.update(renamed)
        #expect(replaced.firstName == "Ada" && replaced.lastName == family)

        // Delete, then a 404.
        try await people.delete(id: try #require(replaced.id))
        let gone = await #expect(throws: CRUDError.self) { try await people.read(id: id) }
        #expect(gone?.isNotFound == true)
        #expect(gone?.serverMessage == "No Person matches the given query.")
    }

    @Test func fieldErrorsComeFromSourcePointers() async throws {
        let people = JSONAPIPerson.using(try api())

        let negative = await #expect(throws: CRUDError.self) {
            try await people.create(JSONAPIPerson(firstName: "A", lastName: "B", age: -1))
        }
        let same = await #expect(throws: CRUDError.self) {
            try await people.create(JSONAPIPerson(firstName: "Same", lastName: "Same"))
        }

        #expect(negative?.status == 400)
        #expect(negative?.fieldErrors["age"] == ["Ensure this value is greater than or equal to 0."])
        #expect(same?.fieldErrors.isEmpty == true)
        #expect(same?.serverMessage == "first_name and last_name must differ.")
    }

    @Test func nestedPostsCarryTheirPersonAsARelationship() async throws {
        let api = try api()
        let ada = try await JSONAPIPerson.using(api).create(JSONAPIPerson(firstName: "Ada", lastName: "Nested"))
        let adaID = try #require(ada.id)
        let posts = JSONAPIPost.scoped(to: ada, api: api)

        let hello = try await posts.create(JSONAPIPost(title: "Hello", body: "World"))
        let second = try await posts.create(JSONAPIPost(title: "Second"))
        let listed = try await posts.list()
        var edited = hello
        edited.title = "Hello again"
        let patched = try await posts.update(edited, from: hello)
        let included = try await JSONAPIPostWithPerson.scoped(to: ada, api: api).list(["include": "person"])

        #expect(hello.person == adaID && second.body == "")
        #expect(listed.map(\.id) == [hello.id, second.id])
        #expect(patched.title == "Hello again" && patched.body == "World" && patched.person == adaID)
        #expect(included.map(\.person?.firstName) == ["Ada", "Ada"])
        try await posts.delete(id: try #require(patched.id))
        #expect(try await posts.list().map(\.id) == [second.id])
    }
}

private struct JSONAPIPerson: CRUDModel, Codable {
    static let path = "people"
    var id: Int?
    var firstName: String
    var lastName: String
    var age: Int?
    var email = ""
    var favoriteColor: String?
    var createdAt: Date?
}

private struct JSONAPIPost: CRUDModel, Codable, JSONAPIResource {
    static let path = "posts"
    static let relationships: [JSONAPIRelationship] = [.toOne("person", JSONAPIPerson.self)]
    var id: Int?
    var title: String
    var body: String?
    var person: Int?
}

/// A post read with its person from `included` (`?include=person`).
private struct JSONAPIPostWithPerson: CRUDModel, Codable, JSONAPIResource {
    static let path = "posts"
    static let relationships: [JSONAPIRelationship] = [.toOne("person", JSONAPIPerson.self, embedded: true)]
    var id: Int?
    var title: String
    var person: JSONAPIPerson?
}
