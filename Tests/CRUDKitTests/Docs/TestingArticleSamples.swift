// The code sample of the DocC article TestingWithCRUDKitTesting.md (Sources/CRUDKit/CRUDKit.docc), compiled and
// run here so it cannot drift from the code.
import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

private struct Person: CRUDModel, Codable {
    static let path = "people"
    var id: Int?
    var firstName: String
    var lastName: String
    var age: Int?
}

@Suite struct TestingArticleSamples {
    @Test func createsAPerson() async throws {
        let backend = InMemoryBackend()
        backend.register("people") { person, _ in
            (person["age"].int ?? 0) < 0 ? ["age": ["Ensure this value is greater than or equal to 0."]] : [:]
        }
        let api = API(baseURL: URL(string: "https://api.example.com")!, transport: backend)

        try await API.withShared(api) {
            let ada = try await Person(firstName: "Ada", lastName: "Lovelace").create()
            #expect(ada.id == 1)
            await #expect(throws: CRUDError.self) { try await Person(firstName: "A", lastName: "B", age: -1).create() }
        }
        #expect(backend.recorder.summary == ["POST /people", "POST /people"])
    }
}
