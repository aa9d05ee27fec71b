import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// `api.get(_:at:)`: a value under an envelope key in one line, `async` and `Future` (issue 15, item 18).
@Suite struct EnvelopeGetTests {
    struct Person: Codable, Hashable, Sendable {
        var id: Int
        var firstName: String
    }

    private static let base = URL(string: "https://api.example.com")!

    private static func api() -> API {
        let server = StubTransport()
            .on(.get, "me", .json(["data": ["person": ["id": 1, "first_name": "Ada"], "role": "admin"]]))
            .on(.get, "people", .json(["data": [["id": 1, "first_name": "Ada"], ["id": 2, "first_name": "Grace"]]]))
        return API(baseURL: base, transport: server)
    }

    @Test func asyncReadsUnderAKeyOrAKeyPath() async throws {
        let api = Self.api()

        let person: Person = try await api.get("me", at: "data.person")
        let people = try await api.get("people", at: "data", as: [Person].self)
        let role = try await api.get("me", at: "data.role", as: String.self)

        #expect(person == Person(id: 1, firstName: "Ada"))
        #expect(people.map(\.firstName) == ["Ada", "Grace"])
        #expect(role == "admin")
    }

    @Test func aMissingKeyNamesIt() async throws {
        do {
            _ = try await Self.api().get("me", at: "data.account", as: Person.self)
            Issue.record("expected an error")
        } catch let CRUDError.decoding(failure) {
            #expect(failure.keyPath == "data.account")
        }
    }

    @Test func futureTwinReadsUnderAKeyPath() async throws {
        let api = Self.api()
        let future: Future<Person> = Self.futureGet(api)
        let person = try await future.value
        #expect(person == Person(id: 1, firstName: "Ada"))
    }

    /// Outside `async` code, the call picks the `Future` overload.
    private static func futureGet(_ api: API) -> Future<Person> {
        api.get("me", at: "data.person", as: Person.self)
    }
}
