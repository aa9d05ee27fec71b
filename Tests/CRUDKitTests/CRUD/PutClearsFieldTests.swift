import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// A PUT is a full replacement: a property set to `nil` is sent as `null`, so servers that keep the keys a PUT
/// leaves out (Django REST framework, Rails) clear it (issue 15, item 1). A POST still leaves `nil`s out.
@Suite struct PutClearsFieldTests {
    /// A person that never sends `null` in a PUT (for a server that treats PUT as a partial update).
    struct PartialPerson: CRUDModel, Codable, Hashable {
        static let path = "people"
        static func conventions(from api: APIConventions) -> APIConventions { api.with { $0.putNilEncoding = .omit } }
        var id: Int?
        var firstName: String
        var lastName: String
        var favoriteColor: String?
    }

    /// A person whose nickname is tri-state: `.absent` is never sent.
    struct TriStatePerson: CRUDModel, Codable, Hashable {
        static let path = "people"
        var id: Int?
        var firstName: String
        var lastName: String
        var nickname: JSONAttribute<String> = .absent
        var favoriteColor: String?
    }

    private static let base = URL(string: "https://api.example.com/v1")!

    private static func api(
        _ server: InMemoryBackend, conventions: APIConventions = .djangoREST, coding: JSONCoding = .default
    ) -> API {
        API(
            configuration: APIConfiguration(
                baseURL: base, transport: server, conventions: conventions.with { $0.coding = coding }))
    }

    private func backend(_ style: InMemoryBackend.Style) -> InMemoryBackend {
        let backend = makePeopleBackend(style)
        backend.insert(
            ["first_name": "Ada", "last_name": "Lovelace", "age": 36, "favorite_color": "green"], into: "people")
        return backend
    }

    @Test(arguments: [("drf", InMemoryBackend.Style.drf), ("rails", InMemoryBackend.Style.rails)])
    func updateClearsAFieldSetToNil(name: String, style: InMemoryBackend.Style) async throws {
        // Given a server that keeps the keys a PUT leaves out
        let server = backend(style)
        let api = API(baseURL: Self.base, conventions: name == "drf" ? .djangoREST : .rails, transport: server)
        let people = Member.using(api)
        var ada = try await people.read(id: 1)
        #expect(ada.favoriteColor == "green")

        // When the user clears a field and saves the whole value
        ada.favoriteColor = nil
        ada.age = nil
        let saved = try await people.update(ada)

        // Then the server cleared it
        let put = try #require(server.recorder.requests(.put, "people/1").last)
        #expect(put.json["favorite_color"] == .null)
        #expect(put.json.object?["favorite_color"] != nil)
        #expect(saved.favoriteColor == nil)
        #expect(saved.age == nil)
        #expect(server.record(in: "people", id: 1)?["favorite_color"] == .null)
        #expect(try await people.read(id: 1).favoriteColor == nil)
    }

    @Test func createStillLeavesNilOptionalsOut() async throws {
        let server = backend(.drf)
        let people = Member.using(API(baseURL: Self.base, conventions: .djangoREST, transport: server))

        _ = try await people.create(Member(firstName: "Grace", lastName: "Hopper"))

        let post = try #require(server.recorder.requests(.post, "people").last)
        #expect(post.json.object?.keys.sorted() == ["first_name", "last_name"])
    }

    @Test func theKeyFollowsTheAPIKeyStyle() async throws {
        let server = InMemoryBackend(style: .drf)
        server.register("people")
        server.insert(["firstName": "Ada", "lastName": "L", "favoriteColor": "green"], into: "people")
        let api = Self.api(server, coding: JSONCoding(convertsSnakeCase: false))
        var ada = try await Member.using(api).read(id: 1)

        ada.favoriteColor = nil
        _ = try await Member.using(api).update(ada)

        let body = try #require(server.recorder.requests(.put, "people/1").last).json
        #expect(body.object?["favoriteColor"] == .null)
        #expect(body.object?["favorite_color"] == nil)
        #expect(server.record(in: "people", id: 1)?["favoriteColor"] == .null)
    }

    @Test func theFoundationEngineWritesTheNullsToo() async throws {
        let server = backend(.drf)
        let api = Self.api(server, coding: JSONCoding(engine: .foundation))
        var ada = try await Member.using(api).read(id: 1)

        ada.favoriteColor = nil
        _ = try await Member.using(api).update(ada)

        #expect(server.record(in: "people", id: 1)?["favorite_color"] == .null)
    }

    @Test func aModelCanOptOut() async throws {
        let server = backend(.drf)
        let people = PartialPerson.using(API(baseURL: Self.base, conventions: .djangoREST, transport: server))
        var ada = try await people.read(id: 1)

        ada.favoriteColor = nil
        _ = try await people.update(ada)

        let body = try #require(server.recorder.requests(.put, "people/1").last).json
        #expect(body.object?["favorite_color"] == nil)
        #expect(server.record(in: "people", id: 1)?["favorite_color"] == "green")
    }

    @Test func anAPICanOptOutAndAModelCanOptBackIn() async throws {
        var conventions = APIConventions.djangoREST
        conventions.putNilEncoding = .omit
        let server = backend(.drf)
        let api = API(baseURL: Self.base, conventions: conventions, transport: server)
        var ada = try await Member.using(api).read(id: 1)

        ada.favoriteColor = nil
        let body = try Member.using(api).replacement(for: ada)

        #expect(body.object?["favorite_color"] == nil)
        #expect(body["first_name"] == "Ada")
    }

    @Test func anAbsentAttributeIsStillLeftOut() async throws {
        let server = backend(.drf)
        let people = TriStatePerson.using(API(baseURL: Self.base, conventions: .djangoREST, transport: server))
        var ada = try await people.read(id: 1)
        ada.nickname = .absent
        ada.favoriteColor = nil

        let body = try people.replacement(for: ada)
        ada.nickname = .null
        let cleared = try people.replacement(for: ada)

        #expect(body.object?.keys.sorted() == ["favorite_color", "first_name", "id", "last_name"])
        #expect(cleared.object?["nickname"] == .null)
    }

    @Test func theCodingOptionWritesNullsInNestedObjects() throws {
        var member = Member(id: 1, firstName: "Ada", lastName: "L")
        member.address = .init(city: "London")
        let coding = JSONCoding(nilEncoding: .null)

        let json = try coding.encodeJSON(member)
        let omitted = try JSONCoding.default.encodeJSON(member)

        #expect(json["address"].object?["zip"] == .null)
        #expect(json.object?["age"] == .null)
        #expect(omitted.object?["age"] == nil)
        #expect(omitted["address"].object?["zip"] == nil)
    }
}
