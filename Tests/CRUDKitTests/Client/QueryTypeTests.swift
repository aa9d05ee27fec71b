import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// One query type everywhere: `api.get`/`post`/`put`/`patch`/`delete`, `Request`, `download` and `API` defaults
/// take `FormParameters` (lists, nested fields, numbers) as model operations do, and a `[String: String]` still
/// works where it did.
@Suite struct QueryTypeTests {
    let transport = StubTransport().on(nil, "**", .json(text: "[]"))
    /// The requests the transport received, as sent.
    var requests: [HTTPRequest] { transport.recorder.requests.map(\.request) }
    var api: API { API(baseURL: URL(string: "https://api.example.com/v1")!, transport: transport) }

    @Test func callsTakeFormParametersWithListsAndNestedFields() async throws {
        // Given
        let query: FormParameters = ["tags": ["a", "b"], "page": 2, "person": ["name": "Ada"]]

        // When
        _ = try await api.get("people", query: query)
        _ = try await api.post("people", query: query)
        _ = try await api.delete("people/1", query: query)
        let _: [Int] = try await api.send(Request(.get, "people", query: query))

        // Then
        let expected = "tags%5B%5D=a&tags%5B%5D=b&page=2&person%5Bname%5D=Ada"
        #expect(requests.map { $0.url.query ?? "" } == Array(repeating: expected, count: 4))
    }

    @Test func aStringDictionaryStillWorks() async throws {
        // Given: a [String: String] held in a variable, and a literal with a String variable in it
        let filters: [String: String] = ["last_name": "Lovelace", "age_gte": "30"]
        let name = "Ada Lovelace"

        // When
        _ = try await api.get("people", query: filters)
        let _: [Int] = try await api.get("people", query: ["q": name])
        _ = try await api.put("people/1", query: ["q": "\(2 + 2)"])

        // Then: sorted by name, as before
        #expect(
            requests.map { $0.url.query ?? "" } == [
                "age_gte=30&last_name=Lovelace", "q=Ada%20Lovelace", "q=4",
            ])
    }

    @Test func theAPIDefaultsTakeFormParametersToo() async throws {
        // Given
        let defaults = API(
            baseURL: URL(string: "https://api.example.com/v1")!, query: ["format": "json", "v": 2] as FormParameters,
            transport: transport)

        // When
        _ = try await defaults.get("people", query: ["page": "1"])

        // Then
        #expect(requests.map { $0.url.query ?? "" } == ["format=json&v=2&page=1"])
    }
}
