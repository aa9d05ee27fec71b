// The code samples of README's "Testing with CRUDKitTesting" section, compiled and run: keep them in step.
import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct Person: Codable, Sendable, Equatable {
    var id: Int?
    var firstName: String
    var lastName: String
    var age: Int?
}

@Suite struct TestingReadmeSamples {
    // README: "An in-memory backend"
    @Test func createsAndReadsAPerson() async throws {
        let backend = InMemoryBackend(style: .drf)
        backend.register("people") { person, _ in
            (person["last_name"].string ?? "").isEmpty ? ["last_name": ["This field is required."]] : [:]
        }
        let slash = APIConventions.standard.with { $0.trailingSlash = .always }
        let api = API(baseURL: URL(string: "https://api.example.com")!, conventions: slash, transport: backend)

        let made: Person = try await api.post("people", body: .json(Person(firstName: "Ada", lastName: "Lovelace")))
        let read: Person = try await api.get("people/\(made.id ?? 0)")

        #expect(read == made)
        #expect(backend.count(in: "people") == 1)
        #expect(backend.recorder.last?.path == "/people/1/")

        do {
            let _: Person = try await api.post("people", body: .json(Person(firstName: "Alan", lastName: "")))
            Issue.record("expected a 400")
        } catch let error as CRUDError {
            #expect(error.status == 400)  // {"last_name": ["This field is required."]}
        }
    }

    // README: "Failures on demand"
    @Test func retriesThroughInjectedFailures() async throws {
        let backend = InMemoryBackend()
        backend.register("people")
        backend.failNext(2, status: 503)
        let api = API(
            baseURL: URL(string: "https://api.example.com")!, transport: backend,
            middleware: .standard.inserting(
                RetryMiddleware(policy: RetryPolicy(maxAttempts: 3, initialDelay: .zero, jitter: 0))))

        let people: [Person] = try await api.get("people")

        #expect(people.isEmpty)
        #expect(backend.recorder.count == 3)
    }

    // README: "Stubs and the recorder"
    @Test func stubsAnswerAndTheRecorderRemembers() async throws {
        let stubs = StubTransport()
        stubs.on(.get, "people/:id", .json(["id": 12, "first_name": "Ada", "last_name": "Lovelace"]))
        stubs.on(.patch, "people/:id") { request in
            .json(["id": .string(request.parameters["id"] ?? ""), "age": request.json["age"]])
        }
        let api = API(baseURL: URL(string: "https://api.example.com/v1")!, transport: stubs)

        let ada: Person = try await api.get("people/12", headers: ["Authorization": "Token abc"])
        _ = try await api.patch("people/12", body: .json(["age": 36]))

        #expect(ada.firstName == "Ada")
        let sent = try #require(stubs.recorder.last)
        #expect(sent.method == .patch)
        #expect(sent.path == "/v1/people/12")
        #expect(sent.json == ["age": 36])
        #expect(stubs.recorder.first?.header("Authorization") == "Token abc")
        #expect(stubs.recorder.summary == ["GET /v1/people/12", "PATCH /v1/people/12"])
    }
}

extension NetworkTests {
    @Suite struct TestingReadmeLoopbackSamples {
        // README: "Over real HTTP"
        @Test func servesTheBackendOverHTTP() async throws {
            let backend = InMemoryBackend(style: .drf)
            backend.register("people")
            let server = LoopbackServer(backend: backend)
            try server.start()
            defer { server.stop() }
            let slash = APIConventions.standard.with { $0.trailingSlash = .always }
            let api = API(baseURL: server.baseURL, conventions: slash, transport: URLSessionTransport())

            let made: Person = try await api.post("people", body: .json(Person(firstName: "Ada", lastName: "L")))
            let page = try await api.get("people").body

            #expect(made.id == 1)
            #expect(try JSON(data: page)["count"] == 1)
        }
    }
}
