import CRUDKit
import CRUDKitTesting
import Foundation
import OpenAPISnapshotPeople30
import OpenAPISnapshotPets31
import Testing

/// The committed snapshot models, used through CRUDKit against a stub server: keys as spelled, readOnly never
/// sent, writeOnly never expected, request schemas, nullable versus absent, enums, unions, paths and actions.
@Suite struct GeneratedModelTests {
    let stubs = StubTransport(unmatched: .fail)
    let api: API

    init() {
        // The plain DRF preset converts snake_case keys; the models must keep theirs as spelled all the same.
        api = API(baseURL: URL(string: "https://api.example.com/api")!, conventions: .djangoREST, transport: stubs)
    }

    static let adaText = """
        {"id": 1, "first_name": "Ada", "idNumber": "X-1", "email": null, "created_at": "2026-12-02T01:02:03Z",
         "favorite_color": "red", "balance": "123456789012345678.91", "birthday": "1990-01-02",
         "uuid": "5B8E2B4C-7C33-4E6B-9B1F-7A1B2C3D4E5F", "address": {"street": "Main", "postCode": "123"},
         "settings": {"theme": "dark"}, "coordinates": {"lat": 1.5, "lng": 2}, "pet": {"kind": "cat", "lives": 9}}
        """

    @Test func readKeepsKeysAsSpelledUnderASnakeCaseAPI() async throws {
        _ = stubs.on(.get, "people/:id", .json(text: Self.adaText))
        let ada = try await OpenAPISnapshotPeople30.Person.using(api).read(id: 1)
        #expect(ada.id == 1)
        #expect(ada.firstName == "Ada")
        #expect(ada.idNumber == "X-1")
        #expect(ada.email == nil)
        #expect(ada.nickname == .absent)
        #expect(ada.favoriteColor == .value(.red))
        #expect(ada.balance == Decimal(string: "123456789012345678.91"))
        #expect(ada.birthday == CalendarDate(year: 1990, month: 1, day: 2))
        #expect(ada.address.wrappedValue?.postCode == "123")
        #expect(ada.coordinates?.lng == 2)
        #expect(ada.pet == .cat(Cat(kind: "cat", lives: 9)))
        #expect(ada.createdAt == Date(timeIntervalSince1970: 1_796_173_323))
        #expect(ada.password == nil)
        #expect(stubs.recorder.last?.path == "/api/people/1/")
    }

    @Test func createSendsTheRequestSchemaAndNoReadOnlyField() async throws {
        _ = stubs.on(.post, "people") { request in .json(text: Self.adaText, status: 201) }
        var person = Person(firstName: "Ada", idNumber: "X-1", createdAt: Date(), password: "secret")
        person.id = 99
        person.balance = Decimal(string: "12.50")
        _ = try await Person.using(api).create(person)
        let body = try #require(stubs.recorder.last).json
        #expect(stubs.recorder.last?.path == "/api/people/")
        #expect(body["first_name"] == "Ada")
        #expect(body["idNumber"] == "X-1")
        #expect(body["password"] == "secret")
        #expect(body["email"] == .null)
        #expect(body["balance"] == "12.5")
        #expect(body["id"] == nil)
        #expect(body["created_at"] == nil)
        #expect(body["nickname"] == nil)
    }

    @Test func putClearsANullableFieldAndLeavesAnAbsentOneOut() async throws {
        _ = stubs.on(.get, "people/:id", .json(text: Self.adaText))
        _ = stubs.on(.put, "people/:id") { request in .json(request.json) }
        var ada = try await Person.using(api).read(id: 1)
        ada.favoriteColor = .null
        ada.address = .absent
        _ = try await Person.using(api).update(ada)
        let body = try #require(stubs.recorder.last).json
        #expect(stubs.recorder.last?.method == .put)
        #expect(body["favorite_color"] == .null)
        #expect(body["address"] == nil)
        #expect(body["email"] == .null)
        #expect(body["age"] == nil)
    }

    @Test func anUnknownEnumValueIsKeptAndWrittenBack() throws {
        let coding = JSONCoding.camelCase
        let color = try coding.decode(ColorEnum.self, from: Data("\"purple\"".utf8))
        #expect(color == .unknown("purple"))
        #expect(try JSON(data: coding.encode(color)) == "purple")
        #expect(ColorEnum(rawValue: "dark-red") == .darkRed)
    }

    @Test func aUnionDecodesByItsDiscriminatorAndKeepsUnknownKinds() throws {
        let coding = JSONCoding.camelCase
        let dog = try coding.decode(Pet.self, from: Data(#"{"kind": "dog", "good": true}"#.utf8))
        #expect(dog == .dog(Dog(kind: "dog", good: true)))
        let fish = try coding.decode(Pet.self, from: Data(#"{"kind": "fish", "fins": 2}"#.utf8))
        #expect(fish == .unknown(["kind": "fish", "fins": 2]))
        #expect(try JSON(data: coding.encode(fish)) == ["kind": "fish", "fins": 2])
    }

    @Test func aSchemaThatContainsItselfReadsAndWritesThroughItsBox() throws {
        let coding = JSONCoding.camelCase
        let text = #"""
            {"name": "a", "parent": {"name": "root", "parent": null}, "first_child": {"name": "b"},
             "children": [{"name": "c"}], "tag": {"label": "t", "category": {"name": "d"}}}
            """#
        var category = try coding.decode(OpenAPISnapshotPets31.Category.self, from: Data(text.utf8))
        #expect(category.parent.wrappedValue?.name == "root")
        #expect(category.parent.wrappedValue?.parent == .null)
        #expect(category.firstChild?.name == "b")
        #expect(category.children?.first?.name == "c")
        #expect(category.tag?.category?.name == "d")
        #expect(try JSON(data: coding.encode(category)) == JSON(data: Data(text.utf8)))
        let copy = category
        category.firstChild?.name = "changed"
        #expect(copy.firstChild?.name == "b")
        #expect(copy != category)
        #expect(Set([copy, category, copy]).count == 2)
    }

    @Test func aNestedCollectionIsReachedThroughItsParent() async throws {
        _ = stubs.on(.post, "people/:id/posts") { request in
            .json(["id": "5B8E2B4C-7C33-4E6B-9B1F-7A1B2C3D4E5F", "title": request.json["title"]], status: 201)
        }
        let parent = Person(id: 7, firstName: "Ada", idNumber: "X")
        let post = try await Post.scoped(to: parent, api: api).create(
            Post(title: "Hello", labels: Post.Labels(tags: ["a"], pinned: true)))
        #expect(post.title == "Hello")
        #expect(stubs.recorder.last?.path == "/api/people/7/posts/")
        #expect(try #require(stubs.recorder.last).json["labels"] == ["tags": ["a"], "pinned": true])
    }

    @Test func customActionsAreTypedMethods() async throws {
        _ = stubs.on(.post, "people/:id/activate", .json(text: Self.adaText))
        _ = stubs.on(.get, "people/search", .json(text: "[\(Self.adaText)]"))
        // Person 41, made here: Person 1 is read by the other tests, each through its own API, and CRUDKit refuses
        // to send a value read through an API that no longer exists.
        let ada = Person(id: 41, firstName: "Ada", idNumber: "X")
        let active = try await API.withShared(api) { try await ada.activate() }
        #expect(active.firstName == "Ada")
        #expect(stubs.recorder.last?.path == "/api/people/41/activate/")
        let found = try await API.withShared(api) { try await Person.search(query: ["q": "ada"]) }
        #expect(found.map(\.idNumber) == ["X-1"])
    }

    @Test func aNestedModelsActionsGoUnderItsParent() async throws {
        // An id no other test reads: a value read through two APIs has no single origin to write back to.
        let postID = "7E57AC70-0000-4000-8000-000000000042"
        _ = stubs.on(.get, "people/:p/posts/:id", .json(["id": JSON.string(postID), "title": "Draft"]))
        _ = stubs.on(.post, "people/:p/posts/:id/publish", .json(["id": JSON.string(postID), "title": "Published"]))
        _ = stubs.on(.post, "people/:p/posts/bulk") { request in .json(request.json, status: 201) }
        let parent = Person(id: 8, firstName: "Ada", idNumber: "X")
        let posts = Post.scoped(to: parent, api: api)
        let draft = try await posts.read(id: try #require(UUID(uuidString: postID)))
        let published = try await draft.publish()
        #expect(published.title == "Published")
        #expect(stubs.recorder.last?.method == .post)
        #expect(stubs.recorder.last?.path == "/api/people/8/posts/\(postID)/publish/")
        let made = try await posts.bulk([Post(title: "A"), Post(title: "B")])
        #expect(made.map(\.title) == ["A", "B"])
        #expect(stubs.recorder.last?.method == .post)
        #expect(stubs.recorder.last?.path == "/api/people/8/posts/bulk/")
        #expect(try #require(stubs.recorder.last).json == [["title": "A"], ["title": "B"]])
    }

    @Test func aNestedModelBuiltByHandIsRefusedAtTheTopLevel() async throws {
        let sent = stubs.recorder.count
        let loose = Post(id: UUID(), title: "Loose")
        await #expect {
            try await API.withShared(api) { _ = try await loose.publish() }
        } throws: { error in
            guard case CRUDError.invalidRequest(let reason) = error else { return false }
            return reason.contains("scoped(to: parent)")
        }
        #expect(stubs.recorder.count == sent)
    }

    @Test func listWalksDjangoPagesWithTheModelsPagination() async throws {
        let api = API(baseURL: URL(string: "https://api.example.com/api")!, conventions: .standard, transport: stubs)
        _ = stubs.on(.get, "people") { request in
            if request.recorded.query["page"] == "2" {
                return .json(
                    text:
                        #"{"count": 2, "next": null, "previous": null, "results": [\#(Self.adaText.replacingOccurrences(of: "\"id\": 1", with: "\"id\": 2"))]}"#
                )
            }
            return .json(
                text: #"{"count": 2, "next": "https://api.example.com/api/people/?page=2", "previous": null, "#
                    + #""results": [\#(Self.adaText)]}"#)
        }
        let all = try await Person.using(api).all().collect()
        #expect(all.compactMap(\.id) == [1, 2])
    }

    @Test func fastAPIModelsReadUUIDIdsDatesAndDecimalsFromStrings() async throws {
        let owner = "5B8E2B4C-7C33-4E6B-9B1F-7A1B2C3D4E5F"
        _ = stubs.on(
            .get, "owners/:id",
            .json(
                text:
                    #"{"id": "\#(owner)", "name": "Ann", "joined": "2020-02-29", "nickname": null, "rating": "4.5", "last_seen": null}"#
            ))
        let read = try await Owner.using(api).read(id: try #require(UUID(uuidString: owner)))
        #expect(read.joined == CalendarDate(year: 2020, month: 2, day: 29))
        #expect(read.nickname == .null)
        #expect(read.rating == Decimal(string: "4.5"))
        #expect(read.lastSeen == .null)
        #expect(read.visits == nil)
        #expect(stubs.recorder.last?.path == "/api/owners/\(owner)")
    }

    @Test func anIdNamedByThePathParameterIsTheModelsId() async throws {
        let owner = Owner(id: UUID(), name: "Ann", joined: CalendarDate(year: 2020, month: 1, day: 1))
        _ = stubs.on(.patch, "owners/:o/animals/:a") { request in
            .json(["animal_id": 3, "name": request.json["name"], "species": "hamster"])
        }
        let before = AnimalOut(animalId: 3, name: "Rex", species: .dog)
        var after = before
        after.name = "Max"
        let saved = try await AnimalOut.scoped(to: owner, api: api).update(after, from: before)
        #expect(saved.id == 3)
        #expect(saved.species == .unknown("hamster"))
        #expect(try #require(stubs.recorder.last).json == ["name": "Max"])
        #expect(stubs.recorder.last?.path == "/api/owners/\(owner.id?.uuidString ?? "")/animals/3")
    }
}
