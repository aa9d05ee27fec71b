import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// Rails' `wrap_parameters`: a request body wrapped as `{"person": {…}}`, an answer sent bare; and a write the
/// server accepted is never reported as a plain failure (issue 15, item 4).
@Suite struct RequestKeyTests {
    /// Wrapped in requests only.
    struct Person: CRUDModel, Codable, Hashable {
        static let path = "people"
        static let requestKey: String? = "person"
        var id: Int?
        var firstName: String
        var favoriteColor: String?
    }

    /// Wrapped both ways: what a Rails user set before `requestKey` existed.
    struct WrappedPerson: CRUDModel, Codable, Hashable {
        static let path = "people"
        static let objectKey: String? = "person"
        var id: Int?
        var firstName: String
    }

    private static let base = URL(string: "https://api.example.com")!

    /// Rails: accepts `{"person": {…}}` (or bare), answers bare JSON.
    private static func rails() -> InMemoryBackend {
        let backend = InMemoryBackend(style: .rails)
        backend.register("people", requestKey: "person")
        return backend
    }

    @Test func writesAreWrappedAndBareAnswersAreRead() async throws {
        let server = Self.rails()
        let people = Person.using(API(baseURL: Self.base, conventions: .rails, transport: server))

        var made = try await people.create(Person(firstName: "Ada", favoriteColor: "green"))
        made.favoriteColor = "blue"
        let updated = try await people.update(made)
        let read = try await people.read(id: try #require(made.id))

        #expect(made.id == 1 && made.firstName == "Ada")
        #expect(updated.favoriteColor == "blue")
        #expect(read == updated)
        let writes = server.recorder.requests.filter { $0.method != .get }
        #expect(
            writes.map(\.json) == [
                ["person": ["first_name": "Ada", "favorite_color": "green"]],
                ["person": ["id": 1, "first_name": "Ada", "favorite_color": "blue"]],
            ])
        #expect(server.record(in: "people", id: 1)?["favorite_color"] == "blue")
    }

    @Test func aWrappedAnswerIsReadToo() async throws {
        let server = StubTransport()
            .on(.post, "people", .json(["person": ["id": 7, "first_name": "Ada"]], status: 201))
            .on(.get, "people/7", .json(["id": 7, "first_name": "Ada"]))
        let people = Person.using(API(baseURL: Self.base, conventions: .rails, transport: server))

        let made = try await people.create(Person(firstName: "Ada"))
        let read = try await people.read(id: 7)

        #expect(made == Person(id: 7, firstName: "Ada"))
        #expect(read == made)
    }

    /// `objectKey` reads a bare answer too, as ActiveResource's `remove_root` does: a Rails app with
    /// `wrap_parameters` answers `{"id": …}` to a `{"person": {…}}` create (issue 23, item 8).
    @Test func anObjectKeyReadsABareAnswer() async throws {
        let server = Self.rails()
        let people = WrappedPerson.using(API(baseURL: Self.base, conventions: .rails, transport: server))

        let made = try await people.create(WrappedPerson(firstName: "Ada"))
        let read = try await people.read(id: try #require(made.id))

        #expect(made == WrappedPerson(id: 1, firstName: "Ada"))
        #expect(read == made)
        #expect(server.recorder.requests.first?.json == ["person": ["first_name": "Ada"]])
        #expect(server.count(in: "people") == 1)
    }

    @Test func anAcceptedWriteWhoseAnswerCannotBeReadSaysTheWriteHappened() async throws {
        // The answer is bare and is not the model either: the write happened, and the error says which key it
        // lacked and that a server answering bare objects wants `requestKey`.
        let server = StubTransport().on(.post, "people", .json(["id": 7, "name": "Ada"], status: 201))
        let people = WrappedPerson.using(API(baseURL: Self.base, conventions: .rails, transport: server))

        let error = await crudError { try await people.create(WrappedPerson(firstName: "Ada")) }

        guard case .writeAccepted(let response, let failure)? = error else {
            Issue.record("expected writeAccepted, got \(String(describing: error))")
            return
        }
        #expect(response.status == 201)
        #expect(response.json["name"] == "Ada")  // the answer is kept: the user can recover the value
        #expect(error?.status == 201)
        #expect(error?.fieldErrors == [:])
        guard case .decoding(let decoding) = failure else {
            Issue.record("expected a decoding failure inside, got \(failure)")
            return
        }
        #expect(decoding.keyPath == "first_name")  // the wire path, as the answer would spell it
        let text = try #require(error?.description)
        #expect(text.hasPrefix("The server accepted the write (201)"))
        #expect(text.contains("but its answer could not be read: expected a value at `first_name`"))
        #expect(text.contains("the answer has no `person` key, so it was read as a bare object"))
        #expect(text.contains("wants requestKey, not objectKey"))
        #expect(text.contains("read the value again rather than sending the write again"))
    }

    @Test func anAcceptedWriteWithNoWayToReadItBackSaysTheWriteHappened() async throws {
        let server = StubTransport().on(.put, "people/3", .status(204)).on(.get, "people/3", .status(404))
        let people = Person.using(API(baseURL: Self.base, transport: server))

        let error = await crudError { try await people.update(Person(id: 3, firstName: "Ada")) }

        guard case .writeAccepted(let response, .httpStatus(let readBack))? = error else {
            Issue.record("expected writeAccepted(httpStatus), got \(String(describing: error))")
            return
        }
        #expect(response.status == 204)
        #expect(readBack.status == 404)
        #expect(error?.description.contains("The write happened") == true)
    }

    @Test func anAcceptedWritesDescriptionHidesSecrets() throws {
        let url = try #require(URL(string: "https://user:pw-s3cret@api.example.com/people?token=tok-s3cret"))
        let body = Data(#"{"id": 1, "password": "pass-s3cret"}"#.utf8)
        let response = HTTPResponse(
            status: 201, headers: ["Set-Cookie": "session=cookie-s3cret"], body: body, url: url)
        let failure = CRUDError.decoding(
            CRUDError.DecodingFailure(keyPath: "person", expected: "a value", found: "nothing", body: body))
        let error = CRUDError.writeAccepted(response, failure: failure)

        let texts = [error.description, String(reflecting: error), error.localizedDescription]
        let logged = Redaction.standard.redact(error)

        for text in texts {
            for secret in ["pw-s3cret", "tok-s3cret", "pass-s3cret", "cookie-s3cret"] {
                #expect(!text.contains(secret), "\(secret) shown in \(text)")
            }
            #expect(text.contains("The server accepted the write (201)"))
        }
        guard case .writeAccepted(let redacted, _) = logged else { return #expect(Bool(false)) }
        #expect(redacted.headers["Set-Cookie"]?.contains("cookie-s3cret") == false)
        #expect(redacted.url?.absoluteString.contains("tok-s3cret") == false)
    }

    private func crudError(_ body: () async throws -> some Any) async -> CRUDError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? CRUDError
        }
    }
}
