import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// The backend driven through `API`: the whole client pipeline (encoding, interceptors, retries, decoding).
@Suite struct APIBackendTests {
    struct Person: Codable, Sendable, Equatable {
        var id: Int?
        var firstName: String
        var lastName: String
        var age: Int?
    }

    let backend = makePeopleBackend(.drfWithConditionalRequests)  // serverErrorsBecomeCRUDErrors needs If-Match
    let api: API

    init() {
        api = API(
            baseURL: URL(string: "https://api.example.com/v1")!,
            conventions: .standard.with { $0.trailingSlash = .always }, transport: backend)
    }

    @Test func crudThroughTheAPI() async throws {
        let made: Person = try await api.post("people", body: .json(Person(firstName: "Ada", lastName: "Lovelace")))
        let patched: Person = try await api.patch("people/\(made.id ?? 0)", body: .json(["age": 36]))
        let replaced: Person = try await api.put(
            "people/\(made.id ?? 0)", body: .json(Person(firstName: "Ada", lastName: "King", age: 36)))
        let page: JSON = try await api.get("people", query: ["last_name": "King"])
        _ = try await api.delete("people/\(made.id ?? 0)")

        #expect(made == Person(id: 1, firstName: "Ada", lastName: "Lovelace"))
        #expect(patched.age == 36)
        #expect(replaced.lastName == "King")
        #expect(page["count"] == 1)
        #expect(backend.count(in: "people") == 0)
        #expect(backend.recorder.summary.first == "POST /v1/people/")
    }

    @Test func serverErrorsBecomeCRUDErrors() async throws {
        backend.insert(["first_name": "Ada", "last_name": "L"], into: "people")
        let tag = try await api.get("people/1").headers["ETag"] ?? ""
        _ = try await api.patch("people/1", body: .json(["age": 1]))

        await #expect(throws: CRUDError.self) {
            let _: Person = try await api.post("people", body: .json(["first_name": "x"]))
        }
        do {
            _ = try await api.patch("people/1", body: .json(["age": 2]), headers: ["If-Match": tag])
            Issue.record("expected a conflict")
        } catch CRUDError.conflict(let response) {
            #expect(response.status == 412)
        }
        do {
            _ = try await api.get("people/99")
            Issue.record("expected a 404")
        } catch let error as CRUDError {
            #expect(error.isNotFound)
        }
    }

    @Test func writeSafetyUnderRandomFaultsThroughRetriesAndIdempotencyKeys() async throws {
        backend.failRandomly(rate: 0.3, seed: 8)
        let api = api.with {
            $0.middleware.insert(IdempotencyKeyMiddleware())
            $0.middleware.insert(
                RetryMiddleware(policy: RetryPolicy(maxAttempts: 20, initialDelay: .zero, jitter: 0, maxTotalTime: nil))
            )
            $0.clock = ManualClock()
        }

        for number in 0..<1000 {
            let _: Person = try await api.post(
                "people", body: .json(Person(firstName: "F\(number)", lastName: "L")))
        }

        #expect(backend.count(in: "people") == 1000)
        #expect(Set(backend.records(in: "people").map(\.["first_name"])).count == 1000)
        let injected = backend.injectedFailures
        #expect((injected["lost"] ?? 0) > 0 && (injected["drop"] ?? 0) > 0 && (injected["status"] ?? 0) > 0)
    }
}
