// The code samples of the DocC article GettingStarted.md (Sources/CRUDKit/CRUDKit.docc), compiled here so they
// cannot drift from the code; the test below runs them against an InMemoryBackend.
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
    var favoriteColor: String?
}

private func configureSample() {
    API.shared = API(
        baseURL: URL(string: "https://api.example.com/v1")!,
        headers: ["Authorization": "Bearer secret"]
    )
}

private func configureDjangoSample(key: String) {
    API.shared = API(baseURL: URL(string: "http://127.0.0.1:8000")!, conventions: .djangoREST, token: key)
}

private func operationsSample() async throws -> (Person, [Person], [Person]) {
    var ada = try await Person(firstName: "Ada", lastName: "Lovelace").create()  // POST   /people
    ada.favoriteColor = "green"
    ada = try await ada.update()  // PUT    /people/1
    var edited = ada
    edited.age = 36
    ada = try await edited.update(from: ada)  // PATCH  /people/1 {"age": 36}
    let fresh = try await Person.read(id: 1)  // GET    /people/1
    let lovelaces = try await Person.list(["last_name": "Lovelace"])  // GET    /people?last_name=Lovelace
    var everyone: [Person] = []
    for try await person in Person.all() {  // every page, fetched as needed
        everyone.append(person)
    }
    try await ada.delete()  // DELETE /people/1
    return (fresh, lovelaces, everyone)
}

private func errorsSample(showProblems: ([String: [String]]) -> Void) async {
    do {
        _ = try await Person(firstName: "Ada", lastName: "Lovelace", age: -1).create()
    } catch let error as CRUDError where !error.fieldErrors.isEmpty {
        showProblems(error.fieldErrors)  // ["age": ["Ensure this value is greater than or equal to 0."]]
    } catch let error as CRUDError where error.isNotFound {
        showProblems(["": [error.serverMessage ?? "Not found."]])
    } catch {}  // (not in the article: other errors)
}

private func futuresSample(
    greet: @escaping @Sendable (String) -> Void, report: @escaping @Sendable (any Error) -> Void
) {
    Person.read(id: 1)
        .map { person in person.firstName }
        .onSuccess { name in greet(name) }
        .onFailure { error in report(error) }
}

@Suite struct GettingStartedSamples {
    let backend = InMemoryBackend()
    let api: API

    init() {
        backend.register("people") { person, _ in
            (person["age"].int ?? 0) < 0 ? ["age": ["Ensure this value is greater than or equal to 0."]] : [:]
        }
        api = API(baseURL: URL(string: "https://api.example.com/v1")!, transport: backend)
    }

    @Test func operationsRunAgainstAnInMemoryServer() async throws {
        let (fresh, lovelaces, everyone) = try await API.withShared(api) { try await operationsSample() }

        #expect(fresh.favoriteColor == "green")
        #expect(fresh.age == 36)
        #expect(lovelaces.map(\.id) == [1])
        #expect(everyone.map(\.firstName) == ["Ada"])
        #expect(
            backend.recorder.summary == [
                "POST /v1/people", "PUT /v1/people/1", "PATCH /v1/people/1", "GET /v1/people/1",
                "GET /v1/people?last_name=Lovelace", "GET /v1/people", "DELETE /v1/people/1",
            ])
        #expect(backend.count(in: "people") == 0)
    }

    @Test func errorsShowTheFieldErrors() async {
        let problems = Locked<[String: [String]]>([:])
        await API.withShared(api) {
            await errorsSample { found in problems.withLock { $0 = found } }
        }
        #expect(problems.withLock { $0 } == ["age": ["Ensure this value is greater than or equal to 0."]])
    }

    @Test func futuresGreet() async throws {
        backend.insert(["first_name": "Ada", "last_name": "Lovelace"], into: "people")
        let greeted = await API.withShared(api) {
            await withCheckedContinuation { continuation in
                futuresSample(
                    greet: { continuation.resume(returning: $0) },
                    report: { continuation.resume(returning: "failed: \($0)") })
            }
        }
        #expect(greeted == "Ada")
        _ = (configureSample, configureDjangoSample)  // compiled, not run: they would replace the shared API
    }
}
