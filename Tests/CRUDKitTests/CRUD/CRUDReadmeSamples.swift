import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

// The README "Models" and "Talking to real servers" samples, compiled here so they cannot rot. The functions
// are called by `readmeWalkRunsAgainstAnInProcessServer` with an in-process server as the shared API.

private struct Person: CRUDModel, Codable, Equatable {
    static let path = "people"
    var id: Int?
    var firstName: String
    var lastName: String
    var age: Int?
    var favoriteColor: String?
}

private struct Post: CRUDModel, Codable, Equatable {
    static let path = "posts"
    var id: Int?
    var title: String
}

private func modelsWalkAsync() async throws {
    let ada = try await Person.read(id: 1)  // GET    /people/1
    var made = try await Person(firstName: "Ada", lastName: "L").create()  // POST   /people
    made.favoriteColor = "green"
    made = try await made.update()  // PUT    /people/{id}
    var edited = made
    edited.favoriteColor = nil
    made = try await edited.update(from: made)  // PATCH  {"favorite_color": null}
    let same = try await made.read()  // GET    /people/{id}
    let adults = try await Person.list(["age__gte": "30"])  // GET    /people?age__gte=30
    let page = try await Person.page()  // items, total, next
    for try await person in Person.all() {  // every page, lazily
        if person.lastName == "Lovelace" { break }
    }
    let posts = Post.scoped(to: ada)  // /people/1/posts
    let hello = try await posts.create(Post(title: "Hello"))
    _ = try await posts.list()
    let activated: Person = try await ada.action(.post, "activate", as: .model())  // POST   /people/1/activate
    let found: [Person] = try await Person.action(.get, "search", query: ["q": "Ada"], as: .models())
    do {
        _ = try await Person(firstName: "A", lastName: "B", age: -1).create()
    } catch let error as CRUDError where !error.fieldErrors.isEmpty {
        _ = error.fieldErrors["age"]  // ["Ensure this value is greater than or equal to 0."]
    }
    do {
        _ = try await Person.read(id: 999)
    } catch let error as CRUDError where error.isNotFound {
        _ = error.serverMessage  // "Not found."
    }
    try await posts.delete(id: hello.id ?? 0)
    try await made.delete()  // DELETE /people/{id} -> Okay
    _ = (same, adults, page.total, activated, found)
}

private func modelsWalkWithFutures(done: @escaping @Sendable (Result<Okay, any Error>) -> Void) {
    Person.read(id: 1)
        .flatMap { ada in Person(firstName: "Grace", lastName: "Hopper").create() }
        .flatMap { made in made.delete() }
        .onSuccess { okay in done(.success(okay)) }
        .onFailure { error in done(.failure(error)) }
    Person.list(["age__gte": "30"]).onSuccess { people in _ = people.count }
    Person.all().collect().onComplete { result in _ = result }
}

private func versionedWalk() async throws {
    var ada = try await Person.readTagged(id: 1)  // remembers the ETag
    ada.favoriteColor = "green"
    do {
        ada = try await ada.updateChanges()  // PATCH with If-Match
    } catch CRUDError.conflict {
        ada = try await Person.readTagged(id: 1)  // changed meanwhile: read again
    }
}

private func talkingToDjango(key: String) {
    let api = API(baseURL: URL(string: "http://127.0.0.1:8000")!, conventions: .djangoREST, token: key)
    API.shared = api
    // GET /people/12/, POST /people/, GET /people/?page=2 … and DRF's {"age": ["…"]} as error.fieldErrors
}

private func perModelSettings() {
    struct LegacyThing: CRUDModel, Codable {
        static let path = "things"
        static let objectKey: String? = "thing"  // {"thing": {…}} both ways
        var id: String?

        static func path(for operation: CRUDOperation) -> String {
            operation == .read ? "things/lookup" : path  // every read goes here
        }

        static func conventions(from api: APIConventions) -> APIConventions {
            api.with {  // the API's, with what this model changes
                $0.trailingSlash = .never
                $0.pagination = .offset(limit: 50)
            }
        }
    }
    _ = LegacyThing.self
}

@Suite struct CRUDReadmeSampleTests {
    @Test func readmeWalkRunsAgainstAnInProcessServer() async throws {
        let server = InMemoryBackend.people()
        server.seed(3)
        try await API.withShared(server.api()) {
            try await modelsWalkAsync()
            let outcome = await withCheckedContinuation { continuation in
                modelsWalkWithFutures { continuation.resume(returning: $0) }
            }
            #expect((try? outcome.get()) == Okay())
        }
        #expect(server.log.contains(#"PATCH /v1/people/4 {"favorite_color":null}"#))
        #expect(server.log.contains(#"POST /v1/people {"first_name":"Grace","last_name":"Hopper"}"#))
        _ = (versionedWalk, talkingToDjango, perModelSettings)
    }
}
