import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// The example at the top of README.md, kept here so it compiles with every change.
/// `Walk.main()` talks to a real server and is never called; the test below runs the same calls offline. README
/// marks `Walk` `@main`, which a test target cannot hold: `.ci/typecheck.sh` type-checks the README's sample as
/// written, `@main` included.
enum ReadmeTop {
    struct Person: CRUDModel, Codable {
        static let path = "people"
        var id: Int?
        var firstName: String
        var lastName: String
        var favoriteColor: String?
    }

    struct Walk {
        static func main() async throws {
            API.shared = API(baseURL: URL(string: "https://api.example.com/v1")!)
            var ada = try await Person(firstName: "Ada", lastName: "Lovelace").create()  // POST   /people
            ada.favoriteColor = "green"
            ada = try await ada.update()  // PUT    /people/1
            for try await person in Person.all(["age_gte": "30"]) { print(person.firstName) }  // every page
            try await ada.delete()  // DELETE /people/1
            let backup = API(baseURL: URL(string: "https://backup.example.com/v1")!)
            var copy = try await Person.using(backup).read(id: 12)  // GET    backup /people/12
            copy.favoriteColor = "blue"
            copy = try await copy.update()  // PUT backup /people/12: back where it came from
        }
    }
}

@Suite struct ReadmeTopSampleTests {
    @Test func theTopExampleWorksAgainstAnInMemoryBackend() async throws {
        // Given
        let backend = InMemoryBackend()
        backend.register("people")
        let api = API(baseURL: URL(string: "https://api.example.com/v1")!, transport: backend)

        // When: the README's calls, against the backend
        try await API.withShared(api) {
            var ada = try await ReadmeTop.Person(firstName: "Ada", lastName: "Lovelace").create()
            ada.favoriteColor = "green"
            ada = try await ada.update()
            var names: [String] = []
            for try await person in ReadmeTop.Person.all() { names.append(person.firstName) }
            #expect(names == ["Ada"])
            try await ada.delete()
        }
        let backup = InMemoryBackend()
        backup.register("people")
        _ = backup.insert(["first_name": "Ada", "last_name": "Backup"], into: "people")
        let backupAPI = API(baseURL: URL(string: "https://backup.example.com/v1")!, transport: backup)
        try await API.withShared(api) {
            var copy = try await ReadmeTop.Person.using(backupAPI).read(id: 1)
            copy.favoriteColor = "blue"
            copy = try await copy.update()
        }
        #expect(backup.recorder.summary == ["GET /v1/people/1", "PUT /v1/people/1"])

        // Then
        #expect(backend.count(in: "people") == 0)
        #expect(
            backend.recorder.summary.map { $0.components(separatedBy: "?")[0] } == [
                "POST /v1/people", "PUT /v1/people/1", "GET /v1/people", "DELETE /v1/people/1",
            ])
    }
}
