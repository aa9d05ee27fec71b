import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// The `.jsonAPI` preset on the wire: what it sends (media type, resource objects with `type` and `id`, only the
/// changes, no PUT, the parent as a relationship) and what it reads (`meta.pagination.count`, relationships,
/// `included`), checked against canned answers and against `InMemoryBackend(style: .jsonAPI)`, which refuses what
/// djangorestframework-jsonapi refuses.
@Suite struct JSONAPIConventionsTests {
    private static let person: JSON = [
        "data": [
            "type": "people", "id": "12",
            "attributes": ["first_name": "Ada", "last_name": "Lovelace", "age": 36, "favorite_color": "green"],
        ]
    ]

    private func stubbed(_ stub: StubTransport) -> API {
        API(baseURL: testBase, conventions: .jsonAPI, transport: stub)
    }

    // MARK: - 1. Media type

    @Test func sendsAndAcceptsTheJSONAPIMediaType() async throws {
        let stub = StubTransport()
            .on(.get, "people/12", .json(Self.person, headers: ["Content-Type": "application/vnd.api+json"]))
            .on(.post, "people", .json(Self.person, status: 201, headers: ["Content-Type": "application/vnd.api+json"]))
        let api = stubbed(stub)

        let read = try await JSONAPIPerson.using(api).read(id: 12)
        _ = try await JSONAPIPerson.using(api).create(JSONAPIPerson(firstName: "Ada", lastName: "Lovelace"))

        #expect(read.id == 12 && read.firstName == "Ada" && read.age == 36)
        let get = try #require(stub.recorder.requests(.get, "people/12").first)
        let post = try #require(stub.recorder.requests(.post, "people").first)
        #expect(get.headers["Accept"] == "application/vnd.api+json")
        #expect(post.headers["Accept"] == "application/vnd.api+json")
        #expect(post.headers["Content-Type"] == "application/vnd.api+json")
    }

    @Test func everyOperationPassesTheServersMediaTypeChecks() async throws {
        let backend = InMemoryBackend(style: .jsonAPI)
        backend.register("people")
        let api = API(baseURL: testBase, conventions: .jsonAPI, transport: backend)
        let scope = JSONAPIPerson.using(api)

        let made = try await scope.create(JSONAPIPerson(firstName: "Ada", lastName: "Lovelace", age: 36))
        let read = try await scope.read(id: try #require(made.id))
        var edited = read
        edited.age = 37
        let patched = try await scope.update(edited, from: read)
        let listed = try await scope.list()
        try await scope.delete(id: try #require(patched.id))

        #expect(made.id == 1 && read.firstName == "Ada" && patched.age == 37 && listed.map(\.id) == [1])
        #expect(backend.recorder.requests.allSatisfy { $0.headers["Accept"] == "application/vnd.api+json" })
    }

    @Test func backendRefusesWhatTheServerRefuses() async throws {
        let backend = InMemoryBackend(style: .jsonAPI)
        backend.register("people")
        _ = backend.insert(["first_name": "Ada", "last_name": "Lovelace"], into: "people")
        func send(
            _ method: HTTPMethod, _ path: String, _ headers: HTTPHeaders, _ body: String?
        ) async throws
            -> HTTPResponse
        {
            let url = testBase.appendingPathComponent(path)
            return try await backend.send(
                HTTPRequest(
                    method: method, url: url, headers: headers, body: body.map { .data(Data($0.utf8)) } ?? .none))
        }
        let jsonAPI = "application/vnd.api+json"

        let plainAccept = try await send(.get, "people", ["Accept": "application/json"], nil)
        let plainBody = try await send(
            .post, "people", ["Content-Type": "application/json"],
            #"{"data": {"type": "people", "attributes": {"first_name": "B"}}}"#)
        let noType = try await send(
            .patch, "people/1", ["Content-Type": jsonAPI], #"{"data": {"id": "1", "attributes": {"age": 3}}}"#)
        let noID = try await send(
            .patch, "people/1", ["Content-Type": jsonAPI], #"{"data": {"type": "people", "attributes": {"age": 3}}}"#)
        let put = try await send(
            .put, "people/1", ["Content-Type": jsonAPI], #"{"data": {"type": "people", "id": "1", "attributes": {}}}"#)

        #expect(plainAccept.status == 406)
        #expect(plainBody.status == 415)
        #expect(noType.status == 409)
        #expect(noID.status == 400)
        #expect(put.status == 405 && put.headers["Allow"] == "GET, PATCH, DELETE, HEAD, OPTIONS")
        #expect(plainAccept.mediaType == jsonAPI)
        #expect(backend.records(in: "people").first?["age"] != 3)
    }

    // MARK: - 2 and 3. PATCH: type and id, only the changes

    @Test func patchCarriesTypeAndIDAndOnlyTheChangedAttributes() async throws {
        let stub = StubTransport().on(.patch, "people/12", .json(Self.person))
        let api = stubbed(stub)
        let read = JSONAPIPerson(id: 12, firstName: "Ada", lastName: "Lovelace", age: 36, favoriteColor: "green")
        var edited = read
        edited.favoriteColor = nil

        _ = try await JSONAPIPerson.using(api).update(edited, from: read)

        let sent = try #require(stub.recorder.requests(.patch, "people/12").first).json
        #expect(sent == ["data": ["type": "people", "id": "12", "attributes": ["favorite_color": nil]]])
    }

    @Test func nestedPatchCarriesTypeAndIDAndPassesTheServersChecks() async throws {
        let backend = InMemoryBackend(style: .jsonAPI)
        backend.register("people")
        backend.register("people/{person_id}/posts", parentKey: "person")
        let api = API(baseURL: testBase, conventions: .jsonAPI, transport: backend)
        let ada = try await JSONAPIPerson.using(api).create(JSONAPIPerson(firstName: "Ada", lastName: "Lovelace"))
        let posts = JSONAPIPost.scoped(to: ada, api: api)
        let post = try await posts.create(JSONAPIPost(title: "Notes", body: "On the engine"))

        var edited = post
        edited.title = "Notes, revised"
        let saved = try await posts.update(edited, from: post)

        let patch = try #require(backend.recorder.requests(.patch, "people/1/posts/1").first).json
        #expect(patch == ["data": ["type": "posts", "id": "1", "attributes": ["title": "Notes, revised"]]])
        #expect(saved.title == "Notes, revised" && saved.body == "On the engine" && saved.person == 1)
    }

    // MARK: - 4. The list total

    @Test func readsTheTotalFromMetaPaginationCountOrMetaTotal() async throws {
        let items: JSON = [["type": "people", "id": "1", "attributes": ["first_name": "A", "last_name": "B"]]]
        let drf = StubTransport().on(
            .get, "people",
            .json(["data": items, "links": ["next": nil], "meta": ["pagination": ["page": 1, "pages": 1, "count": 1]]]))
        let total = StubTransport().on(
            .get, "people", .json(["data": items, "links": ["next": nil], "meta": ["total": 1]]))

        let fromCount = try await JSONAPIPerson.using(stubbed(drf)).page()
        let fromTotal = try await JSONAPIPerson.using(stubbed(total)).page()

        #expect(fromCount.total == 1 && fromCount.items.map(\.id) == [1])
        #expect(fromTotal.total == 1)
    }

    @Test func walksEveryPageOfTheServer() async throws {
        let backend = InMemoryBackend(style: .jsonAPI)
        backend.register("people")
        for index in 1...23 {
            _ = backend.insert(["first_name": .string("P\(index)"), "last_name": "Z"], into: "people")
        }
        let api = API(baseURL: testBase, conventions: .jsonAPI, transport: backend)

        let page = try await JSONAPIPerson.using(api).page()
        var names: [String] = []
        for try await person in JSONAPIPerson.using(api).all() { names.append(person.firstName) }

        #expect(page.total == 23 && page.items.count == 10)
        #expect(names == (1...23).map { "P\($0)" })
    }

    // MARK: - 5. No PUT

    @Test func replacementIsAPatchWithEveryAttribute() async throws {
        let backend = InMemoryBackend(style: .jsonAPI)
        backend.register("people")
        _ = backend.insert(["first_name": "Ada", "last_name": "Lovelace", "favorite_color": "green"], into: "people")
        let api = API(baseURL: testBase, conventions: .jsonAPI, transport: backend)
        var ada = try await JSONAPIPerson.using(api).read(id: 1)
        ada.favoriteColor = nil

        let replaced = try await JSONAPIPerson.using(api).update(ada)

        let sent = try #require(backend.recorder.last)
        #expect(sent.method == .patch)
        #expect(
            sent.json == [
                "data": [
                    "type": "people", "id": "1",
                    "attributes": ["first_name": "Ada", "last_name": "Lovelace", "age": nil, "favorite_color": nil],
                ]
            ])
        #expect(replaced.favoriteColor == nil)
        #expect(backend.recorder.requests(.put, "**").isEmpty)
    }

    // MARK: - 6. Relationships

    @Test func nestedCreateCarriesItsParentAsARelationship() async throws {
        let backend = InMemoryBackend(style: .jsonAPI)
        backend.register("people")
        backend.register("people/{person_id}/posts", parentKey: "person")
        let api = API(baseURL: testBase, conventions: .jsonAPI, transport: backend)
        let ada = try await JSONAPIPerson.using(api).create(JSONAPIPerson(firstName: "Ada", lastName: "Lovelace"))

        let post = try await JSONAPIPost.scoped(to: ada, api: api).create(JSONAPIPost(title: "Notes"))
        let listed = try await JSONAPIPost.scoped(to: ada, api: api).list()

        let sent = try #require(backend.recorder.requests(.post, "people/1/posts").first).json
        #expect(
            sent == [
                "data": [
                    "type": "posts", "attributes": ["title": "Notes"],
                    "relationships": ["person": ["data": ["type": "people", "id": "1"]]],
                ]
            ])
        #expect(post.person == 1 && listed.map(\.title) == ["Notes"])
    }

    @Test func readsDeclaredRelationshipsAndIncludedResources() async throws {
        let document: JSON = [
            "data": [
                "type": "posts", "id": "7", "attributes": ["title": "Notes"],
                "relationships": [
                    "person": ["data": ["type": "people", "id": "12"]],
                    "editor": ["data": ["type": "people", "id": "12"]],
                    "tags": ["data": [["type": "tags", "id": "a"], ["type": "tags", "id": "b"]]],
                    "undeclared": ["data": ["type": "things", "id": "1"]],
                ],
            ],
            "included": [
                ["type": "people", "id": "12", "attributes": ["first_name": "Ada", "last_name": "Lovelace"]]
            ],
        ]
        let stub = StubTransport().on(.get, "posts/7", .json(document))

        let post = try await JSONAPIPost.using(stubbed(stub)).read(id: 7)

        #expect(post.id == 7 && post.title == "Notes" && post.person == 12)
        #expect(post.editor?.id == 12 && post.editor?.firstName == "Ada")
        #expect(post.tags == ["a", "b"])
    }

    @Test func fieldErrorsComeFromSourcePointers() async throws {
        let backend = InMemoryBackend(style: .jsonAPI)
        backend.register("people") { object, _ in
            (object["age"].int ?? 0) < 0 ? ["age": ["Ensure this value is greater than or equal to 0."]] : [:]
        }
        let api = API(baseURL: testBase, conventions: .jsonAPI, transport: backend)

        let error = await #expect(throws: CRUDError.self) {
            try await JSONAPIPerson.using(api).create(JSONAPIPerson(firstName: "A", lastName: "B", age: -1))
        }

        #expect(error?.status == 400)
        #expect(error?.fieldErrors["age"] == ["Ensure this value is greater than or equal to 0."])
    }
}

private struct JSONAPIPerson: CRUDModel, Codable, Hashable {
    static let path = "people"
    var id: Int?
    var firstName: String
    var lastName: String
    var age: Int?
    var favoriteColor: String?
}

private struct JSONAPIPost: CRUDModel, Codable, JSONAPIResource {
    static let path = "posts"
    static let relationships: [JSONAPIRelationship] = [
        .toOne("person", JSONAPIPerson.self),
        .toOne("editor", JSONAPIPerson.self, embedded: true),
        JSONAPIRelationship(key: "tags", type: "tags", isToMany: true, hasNumericIDs: false),
    ]
    var id: Int?
    var title: String
    var body: String?
    var person: Int?
    var editor: JSONAPIPerson.Summary?
    var tags: [String]?
}

extension JSONAPIPerson {
    struct Summary: Codable, Hashable {
        var id: Int
        var firstName: String?
    }
}
