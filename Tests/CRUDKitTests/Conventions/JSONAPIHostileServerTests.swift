import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// The `.jsonAPI` preset against answers a JSON:API server may send that the happy path does not show: link objects
/// for `links.next`, numeric ids for string-id models, a model that maps its own documents (`format = .plain`),
/// an edit the document cannot carry, a replacement under a parent, and a model that speaks JSON:API on an API that
/// does not.
@Suite struct JSONAPIHostileServerTests {
    private func stubbed(_ stub: StubTransport) -> API {
        API(baseURL: testBase, conventions: .jsonAPI, transport: stub)
    }

    private static func person(_ id: String, _ name: String) -> JSON {
        ["type": "people", "id": .string(id), "attributes": ["first_name": .string(name)]]
    }

    // MARK: - Lists

    /// JSON:API 1.1 lets a link be a link object, `{"href": "…", "meta": …}`; `links.next` as one was read as no
    /// next page, so `all()` ended after the first page without a word.
    @Test func followsANextLinkWrittenAsALinkObject() async throws {
        let first: JSON = [
            "data": [Self.person("1", "A")],
            "links": ["next": ["href": "https://api.example.com/v1/people?page%5Bnumber%5D=2", "meta": ["n": 2]]],
        ]
        let second: JSON = ["data": [Self.person("2", "B")], "links": ["next": nil]]
        let stub = StubTransport().on(.get, "people") { request in
            request.request.url.query?.contains("number") == true ? .json(second) : .json(first)
        }

        let everyone = try await HostilePerson.using(stubbed(stub)).all().collect()

        #expect(everyone.map(\.firstName) == ["A", "B"])
        #expect(stub.recorder.requests.count == 2)
    }

    @Test func aNextLinkObjectToAnotherOriginIsRefusedWithoutSendingCredentials() async throws {
        let first: JSON = [
            "data": [Self.person("1", "A")], "links": ["next": ["href": "https://elsewhere.example.com/people?p=2"]],
        ]
        let stub = StubTransport().on(.get, "**", .json(first))
        let api = API(baseURL: testBase, conventions: .jsonAPI, token: "secret-token", transport: stub)

        await #expect(throws: CRUDError.self) { try await HostilePerson.using(api).all().collect() }

        #expect(stub.recorder.requests.map(\.request.url.host) == ["api.example.com"])
    }

    // MARK: - Ids

    /// JSON:API ids are strings, but servers send numbers; an integer-id model read both, a string-id (or UUID)
    /// model failed on a number.
    @Test func aStringIDModelReadsANumericID() async throws {
        let document: JSON = [
            "data": [
                "type": "posts", "id": 7, "attributes": ["title": "Notes"],
                "relationships": ["author": ["data": ["type": "writers", "id": 12]]],
            ]
        ]
        let stub = StubTransport().on(.get, "posts/7", .json(document))

        let post = try await HostileStringPost.using(stubbed(stub)).read(id: "7")

        #expect(post.id == "7" && post.title == "Notes" && post.author == "12")
    }

    // MARK: - The plain format

    /// CHANGELOG's migration: a model that maps its own `data`/`attributes` keeps it with `format = .plain`. The
    /// preset's `responseKey` (`data`) stayed, so such a model was handed the resource object, not the document.
    @Test func thePlainFormatHandsTheWholeDocumentToAModelThatMapsItsOwn() async throws {
        let stub = StubTransport().on(.get, "people/1", .json(["data": Self.person("1", "Ada")]))
            .on(.get, "people", .json(["data": [Self.person("1", "Ada")], "links": ["next": nil]]))

        let read = try await SelfMappedPerson.using(stubbed(stub)).read(id: 1)

        #expect(read.id == 1 && read.firstName == "Ada")
    }

    // MARK: - PATCH

    /// A change the document cannot carry (an attribute of an embedded related resource; only its id is sent)
    /// sent a PATCH with `type` and `id` alone; when nothing is left to send, nothing is sent.
    @Test func anEditOnlyInsideAnEmbeddedResourceSendsNothing() async throws {
        let stub = StubTransport()
        let read = HostilePost(id: 1, title: "T", editor: .init(id: 2, firstName: "E"))
        var edited = read
        edited.editor?.firstName = "F"

        let saved = try await HostilePost.using(stubbed(stub)).update(edited, from: read)

        #expect(stub.recorder.requests.isEmpty)
        #expect(saved == edited)
    }

    /// `update()` (a PATCH with every attribute) under a parent sent the parent relationship as `null` when the
    /// value left it `nil`, which the server refuses (400 "This field may not be null."); a create fills it in.
    @Test func aReplacementUnderAParentCarriesTheParent() async throws {
        let backend = InMemoryBackend(style: .jsonAPI)
        backend.register("people")
        backend.register("people/{person_id}/posts", parentKey: "person")
        let api = API(baseURL: testBase, conventions: .jsonAPI, transport: backend)
        let ada = try await HostilePerson.using(api).create(HostilePerson(firstName: "Ada"))
        let posts = HostilePost.scoped(to: ada, api: api)
        let made = try await posts.create(HostilePost(title: "Notes"))

        let replaced = try await posts.update(HostilePost(id: made.id, title: "Notes, revised"))

        let sent = try #require(backend.recorder.last?.json)
        #expect(sent["data"]["relationships"]["person"] == ["data": ["type": "people", "id": "1"]])
        #expect(replaced.title == "Notes, revised" && replaced.person == 1)
    }

    // MARK: - Media type

    /// The backend answered a `HEAD` with the plain collection rules' `Content-Type: application/json`; the
    /// server's renderer names its own media type there too.
    @Test func backendAnswersHeadInTheJSONAPIMediaType() async throws {
        let backend = InMemoryBackend(style: .jsonAPI)
        backend.register("people")
        _ = backend.insert(["first_name": "Ada"], into: "people")

        let list = try await backend.send(HTTPRequest(method: .head, url: testBase.appendingPathComponent("people")))
        let one = try await backend.send(HTTPRequest(method: .head, url: testBase.appendingPathComponent("people/1")))

        #expect(list.status == 200 && list.mediaType == "application/vnd.api+json")
        #expect(one.status == 200 && one.mediaType == "application/vnd.api+json")
    }

    /// A model whose own conventions are `.jsonAPI` on an API that speaks plain JSON sent its actions with
    /// `Accept: application/json`, which a JSON:API server answers with 406.
    @Test func aJSONAPIModelsActionsSendTheJSONAPIMediaType() async throws {
        let stub = StubTransport()
            .on(.get, "people/search", .json(["data": [Self.person("1", "Ada")]]))
            .on(.post, "people/1/greet", .json(["data": Self.person("1", "Ada")]))
        let api = API(baseURL: testBase, transport: stub)

        let found: [OwnJSONAPIPerson] = try await OwnJSONAPIPerson.using(api).action(.get, "search", as: .models())
        let greeted: OwnJSONAPIPerson = try await OwnJSONAPIPerson.using(api).action(
            .post, "greet", on: found[0], body: .json(["data": ["type": "greetings"]]), as: .model())

        #expect(found.map(\.firstName) == ["Ada"] && greeted.id == 1)
        let search = try #require(stub.recorder.requests(.get, "people/search").first)
        let greet = try #require(stub.recorder.requests(.post, "people/1/greet").first)
        #expect(search.headers["Accept"] == "application/vnd.api+json")
        #expect(greet.headers["Accept"] == "application/vnd.api+json")
        #expect(greet.headers["Content-Type"] == "application/vnd.api+json")
    }
}

private struct HostilePerson: CRUDModel, Codable, Hashable {
    static let path = "people"
    var id: Int?
    var firstName: String
}

private struct HostilePost: CRUDModel, Codable, Hashable, JSONAPIResource {
    static let path = "posts"
    static let relationships: [JSONAPIRelationship] = [
        .toOne("person", HostilePerson.self), .toOne("editor", HostilePerson.self, embedded: true),
    ]
    var id: Int?
    var title: String
    var person: Int?
    var editor: Editor?

    struct Editor: Codable, Hashable {
        var id: Int
        var firstName: String?
    }
}

private struct HostileStringPost: CRUDModel, Codable, Hashable, JSONAPIResource {
    static let path = "posts"
    static let relationships = [JSONAPIRelationship(key: "author", type: "writers", hasNumericIDs: false)]
    var id: String?
    var title: String
    var author: String?
}

/// A model on an API that speaks plain JSON, talking JSON:API itself.
private struct OwnJSONAPIPerson: CRUDModel, Codable, Hashable {
    static let path = "people"
    static func conventions(from api: APIConventions) -> APIConventions { .jsonAPI }
    var id: Int?
    var firstName: String
}

/// A model that maps the whole JSON:API document itself, as models did before the preset wrote documents.
private struct SelfMappedPerson: CRUDModel, Codable, Hashable {
    static let path = "people"
    static func conventions(from api: APIConventions) -> APIConventions { api.with { $0.format = .plain } }
    var id: Int?
    var firstName: String

    private struct Document: Codable {
        var data: Resource
    }

    private struct Resource: Codable {
        var type: String
        var id: String?
        var attributes: Attributes
    }

    private struct Attributes: Codable {
        var firstName: String
    }

    init(from decoder: any Decoder) throws {
        let document = try Document(from: decoder)
        id = document.data.id.flatMap { Int($0) }
        firstName = document.data.attributes.firstName
    }

    func encode(to encoder: any Encoder) throws {
        let resource = Resource(type: "people", id: id.map(String.init), attributes: Attributes(firstName: firstName))
        try Document(data: resource).encode(to: encoder)
    }
}
