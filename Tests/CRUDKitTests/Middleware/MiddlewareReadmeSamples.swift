import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// README's "Middleware" samples, kept here so they compile with every change, and run against a stub.
enum MiddlewareReadme {
    struct Person: Codable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    struct Envelope: Middleware {
        func intercept(
            _ request: HTTPRequest, context: MiddlewareContext, next: @escaping MiddlewareNext
        ) async throws -> HTTPResponse {
            var response = try await next(request, context)
            response.body = try JSON(data: response.body)["data"].data()  // {"data": {...}} → {...}
            return response
        }
    }

    static func envelopeAPI(base: URL, transport: any Transport) -> API {
        let api = API(baseURL: base, transport: transport).with { $0.middleware.insert(Envelope(), after: .retry) }
        return api
    }

    static func tracedRead(_ api: API) async throws -> Person {
        var request = Request<Person>(.get, "people/12")
        request.middleware = [
            .adapt("trace") { request in
                var request = request
                request.headers["X-Trace"] = UUID().uuidString
                return request
            }
        ]
        let person = try await api.send(request)
        return person
    }
}

@Suite struct MiddlewareReadmeSampleTests {
    @Test func theEnvelopeSampleUnwrapsData() async throws {
        let stubs = StubTransport().on(.get, "people/:id", .json(["data": ["id": 12, "name": "Ada"]]))
        let api = MiddlewareReadme.envelopeAPI(base: URL(string: "https://api.example.com/v1")!, transport: stubs)
        let person: MiddlewareReadme.Person = try await api.get("people/12")
        #expect(person == MiddlewareReadme.Person(id: 12, name: "Ada"))
    }

    @Test func thePerRequestSampleAddsItsHeader() async throws {
        let stubs = StubTransport().on(.get, "people/:id", .json(["id": 12, "name": "Ada"]))
        let api = API(baseURL: URL(string: "https://api.example.com/v1")!, transport: stubs)
        let person = try await MiddlewareReadme.tracedRead(api)
        #expect(person.id == 12)
        #expect(stubs.recorder.last?.headers["X-Trace"]?.count == 36)
    }
}
