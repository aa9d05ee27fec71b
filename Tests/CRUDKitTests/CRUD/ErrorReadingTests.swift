import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// What a person reads in an error: every parsed field message (bounded), and the wire path of a decoding failure
/// with advice for an answer wrapped in a key the conventions do not unwrap.
@Suite struct ErrorReadingTests {
    private struct Person: CRUDModel, Codable {
        static let path = "people"
        var id: Int?
        var firstName: String
    }

    @Test func aValidationFailureDescribesEveryFieldMessage() async throws {
        let body = #"""
            {"message": "The given data was invalid.", "errors": {"first_name": ["The first name field is required."],
            "last_name": ["The last name field is required."], "email": ["The email must be a valid email address."]}}
            """#
        let transport = StubTransport().on(.post, "people") { _ in .json(text: body, status: 422) }
        let api = API(baseURL: URL(string: "https://api.example.com"), conventions: .laravel, transport: transport)
        let error = await #expect(throws: CRUDError.self) {
            try await Person.using(api).create(Person(firstName: ""))
        }
        let text = "\(try #require(error))"
        #expect(text.contains("The given data was invalid."))
        #expect(text.contains("email: The email must be a valid email address."))
        #expect(text.contains("first_name: The first name field is required."))
        #expect(text.contains("last_name: The last name field is required."))
        #expect(!text.contains("{\""))
        #expect(String(reflecting: try #require(error)).contains("The body began: {"))
    }

    @Test func aLongMessageIsCut() async throws {
        let long = String(repeating: "x", count: 5_000)
        let transport = StubTransport().on(.post, "people") { _ in
            .json(["errors": ["name": [.string(long)]]], status: 422)
        }
        let api = API(baseURL: URL(string: "https://api.example.com"), transport: transport)
        let error = await #expect(throws: CRUDError.self) {
            try await Person.using(api).create(Person(firstName: ""))
        }
        #expect("\(try #require(error))".count < 400)
    }

    @Test func aDecodingFailureNamesTheWirePathAndTheWrapper() async throws {
        let transport = StubTransport()
            .on(.get, "people/1") { _ in .json(text: #"{"person": {"id": 1, "firstName": "Ada"}}"#) }
            .on(.get, "people/2") { _ in .json(text: #"{"data": {"id": 2, "first_name": 5}}"#) }
        let api = API(baseURL: URL(string: "https://api.example.com"), transport: transport)
        let error = await #expect(throws: CRUDError.self) { try await Person.using(api).read(id: 1) }
        guard case .decoding(let failure) = try #require(error) else {
            Issue.record("expected a decoding error, got \(String(describing: error))")
            return
        }
        #expect(failure.keyPath == "first_name")
        #expect(failure.found.contains(#"responseKey to "person""#))
        let laravel = API(baseURL: URL(string: "https://api.example.com"), conventions: .laravel, transport: transport)
        let nested = await #expect(throws: CRUDError.self) { try await Person.using(laravel).read(id: 2) }
        guard case .decoding(let under) = try #require(nested) else { return }
        #expect(under.keyPath == "data.first_name")
    }
}
