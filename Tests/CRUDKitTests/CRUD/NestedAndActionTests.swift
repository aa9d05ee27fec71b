import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// Nested collections, custom actions, trailing slashes, overrides, both mapping styles and ETags.
@Suite struct NestedAndActionTests {
    let server = InMemoryBackend.people()
    let api: API

    init() {
        api = server.api()
        server.seed(2)
    }

    @Test func scopedModelsReachAllFiveOperations() async throws {
        let parent = try await Member.using(api).read(id: 1)
        let notes = Note.scoped(to: parent, api: api)
        let made = try await notes.create(Note(title: "Hello"))
        let id = try #require(made.id)
        let read = try await notes.read(id: id)
        var changed = read
        changed.title = "Changed"
        let put = try await notes.update(changed)
        let patched = try await notes.update(Note(id: id, title: "Again"), from: put)
        let listed = try await Note.scoped(to: Member.self, id: 1, api: api).list()
        try await notes.delete(id: try #require(patched.id))
        #expect(listed.map(\.title) == ["Again"])
        #expect(
            server.log.dropFirst().map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == [
                "POST /v1/people/1/posts", "GET /v1/people/1/posts/1", "PUT /v1/people/1/posts/1",
                "PATCH /v1/people/1/posts/1", "GET /v1/people/1/posts", "DELETE /v1/people/1/posts/1",
            ])
        let missing = await crudError { try await Note.scoped(to: Member.self, id: 99, api: api).list() }
        #expect(missing?.isNotFound == true)
    }

    @Test func memberAndCollectionActions() async throws {
        let scope = Member.using(api)
        let member = try await scope.read(id: 2)
        let active: Member = try await scope.action(.post, "activate", on: member, as: .model())
        let json = try await scope.action(.post, "activate", on: member, as: .json)
        let okay = try await scope.action(.post, "activate", on: member, as: .okay)
        let found: [Member] = try await scope.action(.get, "search", query: ["q": "Person"], as: .models())
        #expect(active.id == 2 && json["active"] == true && okay == Okay() && found.count == 2)
        try await API.withShared(api) {
            let again: Member = try await member.action(.post, "activate", as: .model())
            // An action's Future overload is unavailable in async code (noasync): made in a synchronous closure.
            let viaFuture = try await {
                Member.action(.get, "search", query: ["q": "nobody"], as: .models(Member.self))
            }()
            .value
            #expect(again.id == 2 && viaFuture.isEmpty)
        }
        #expect(server.log.last == "GET /v1/people/search?q=nobody")
        #expect(server.log[1] == "POST /v1/people/2/activate")
    }

    /// An action reads its answer with any ``ResponseDecoder``, as a ``Request`` does: a plain `Decodable` type, a
    /// hand mapping, the raw body, the whole response, or a decoder of one's own; a failure is `.decoding`.
    @Test func actionsTakeEveryResponseDecoder() async throws {
        struct Activation: Decodable { var active: Bool }
        struct HandActivation: JSONConvertible {
            var active: Bool
            init(json: JSON) throws { active = try json.required("active") }
        }
        let scope = Member.using(api)
        let member = try await scope.read(id: 2)
        let decoded = try await scope.action(.post, "activate", on: member, as: .decodable(Activation.self))
        let mapped = try await scope.action(.post, "activate", on: member, as: .mapping(HandActivation.self))
        let data = try await scope.action(.post, "activate", on: member, as: .data)
        let whole = try await scope.action(.post, "activate", on: member, as: .response)
        let status = try await scope.action(
            .post, "activate", on: member,
            as: ResponseDecoder { response, _ in
                response.status
            })
        #expect(decoded.active && mapped.active && whole.status == 200 && status == 200)
        #expect(try JSON(data: data)["active"] == true)
        let wrong = await crudError { try await scope.action(.post, "activate", on: member, as: .mapping(Int32.self)) }
        guard case .decoding(let failure) = wrong else { return #expect(Bool(false), "\(String(describing: wrong))") }
        #expect(failure.expected == "Int32")
    }

    @Test func trailingSlashPerAPIAndPerModel() async throws {
        let django = InMemoryBackend.people(trailingSlash: .always)
        django.seed(1)
        let api = django.api(conventions: .djangoREST)
        let member = try await Member.using(api).read(id: 1)
        _ = try await Note.scoped(to: member, api: api).list(["tags": ["a", "b"]])
        #expect(django.log == ["GET /v1/people/1/", "GET /v1/people/1/posts/?tags=a&tags=b"])
        let stubs = StubTransport().on(nil, "**", .json(text: #"{"id": "1"}"#))
        let plain = API(baseURL: testBase, transport: stubs)
        _ = try await Slashed.using(plain).read(id: "1")
        #expect(stubs.recorder.requests.map(\.request.url.absoluteString) == ["https://api.example.com/v1/things/1/"])
    }

    @Test func perOperationPathsAndObjectKeys() async throws {
        let stubs = StubTransport().on(nil, "**", .json(text: #"{"thing": {"id": "7", "name": "N"}}"#))
        let api = API(baseURL: testBase, transport: stubs)
        let scope = Wrapped.using(api)
        let thing = try await scope.read(id: "7")
        _ = try await scope.read(id: try #require(thing.id))
        _ = try await scope.readTagged(id: "7")
        _ = try await scope.create(thing)
        _ = try await scope.update(thing)
        try await scope.delete(id: "7")
        #expect(
            stubs.recorder.requests.map { "\($0.method.rawValue) \($0.request.url.path)" } == [
                "GET /v1/lookup/things/7", "GET /v1/lookup/things/7", "GET /v1/lookup/things/7",
                "POST /v1/things/new", "PUT /v1/admin/things/7", "DELETE /v1/bin/7",
            ])
        #expect(stubs.recorder.requests[3].text == #"{"thing":{"id":"7","name":"N"}}"#)
    }

    @Test func handMappedModelsAndTheWinnerWhenATypeHasBoth() async throws {
        let stubs = StubTransport().on(
            nil, "**", .json(text: #"{"ID": 5, "full_name": "Ada", "fullName": "wrong"}"#))
        let api = API(baseURL: testBase, transport: stubs)
        let hand = try await HandMapped.using(api).read(id: 5)
        #expect(hand.name == "Ada")
        _ = try await HandMapped.using(api).create(HandMapped(id: nil, name: "Ada"))
        #expect(stubs.recorder.last?.text == #"{"full_name":"Ada"}"#)
        let both = try await Both.using(api).read(id: 5)
        #expect(both.name == "Ada")
        _ = try await Both.using(api).update(both)
        #expect(stubs.recorder.last?.text == #"{"ID":5,"full_name":"Ada"}"#)
    }

    @Test func uuidIds() async throws {
        let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let stubs = StubTransport().on(
            nil, "**", .json(text: #"{"id": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}"#))
        let thing = try await Token.using(API(baseURL: testBase, transport: stubs)).read(id: id)
        #expect(thing.id == id)
        #expect(stubs.recorder.first?.path == "/v1/tokens/E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    }

    @Test func etagsTravelWithTheValueAndConflictsSurface() async throws {
        let server = InMemoryBackend.people()
        server.seed(1)
        let scope = Member.using(server.api())
        var tagged = try await scope.readTagged(id: 1)
        #expect(tagged.etag == "\"1\"")
        tagged.favoriteColor = "green"
        let saved = try await tagged.updateChanges()
        #expect(saved.etag == "\"2\"" && saved.value.favoriteColor == "green")
        #expect(server.log.last == #"PATCH /v1/people/1 {"favorite_color":"green"}"#)
        let conflict = await crudError { try await tagged.update() }
        #expect(conflict?.caseName == "conflict")
        let stale = await crudError { try await tagged.delete() }
        #expect(stale?.caseName == "conflict")
        try await saved.delete()
        let gone = await crudError { try await scope.read(id: 1) }
        #expect(gone?.isNotFound == true)
    }
}

private struct Slashed: Readable, Codable {
    static let path = "things"
    static func conventions(from api: APIConventions) -> APIConventions { api.with { $0.trailingSlash = .always } }
    var id: String?
}

private struct Wrapped: CRUDModel, Codable {
    static let path = "things"
    static let objectKey: String? = "thing"
    static func path(for operation: CRUDOperation) -> String {
        switch operation {
        case .create: "things/new"
        case .read: "lookup/things"
        case .update: "admin/things"
        case .delete: "bin"
        case .list: path
        }
    }
    var id: String?
    var name: String
}

private struct Token: Readable, Codable {
    static let path = "tokens"
    var id: UUID?
}

/// Mapped by hand only.
private struct HandMapped: CRUDModel, JSONConvertible, JSONAttributable {
    static let path = "hand"
    var id: Int?
    var name: String

    init(id: Int?, name: String) {
        self.id = id
        self.name = name
    }

    init(json: JSON) throws {
        id = try json.optional("ID")
        name = try json.required("full_name")
    }

    var attributes: JSONAttributes { ["ID": .ifPresent(id), "full_name": .set(name)] }
}

/// Both `Codable` and hand-mapped: the hand mapping wins both ways.
private struct Both: CRUDModel, Codable, JSONConvertible, JSONAttributable {
    static let path = "both"
    var id: Int?
    var name: String

    init(json: JSON) throws {
        id = try json.optional("ID")
        name = try json.required("full_name")
    }

    var attributes: JSONAttributes { ["ID": .ifPresent(id), "full_name": .set(name)] }
}
