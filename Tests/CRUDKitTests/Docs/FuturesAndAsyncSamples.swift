// The code samples of the DocC article FuturesAndAsync.md (Sources/CRUDKit/CRUDKit.docc), compiled here so they
// cannot drift from the code; the tests below run them against an InMemoryBackend.
import CRUDKit
import CRUDKitTesting
import Dispatch
import Foundation
import Testing

private struct Person: CRUDModel, Codable {
    static let path = "people"
    var id: Int?
    var firstName: String
    var lastName: String
}

/// Told what the samples' `show` and `report` see, when a test is waiting for it.
private let seen = Locked<(@Sendable (String) -> Void)?>(nil)
private func show(_ person: Person) { seen.withLock { $0 }?("show \(person.firstName)") }
private func report(_ error: any Error) { seen.withLock { $0 }?("report \(error)") }

/// Runs `start` and waits until `show` or `report` is called with `line`.
private func waitFor(_ line: String, after start: () -> Void) async {
    await withCheckedContinuation { continuation in
        let once = Locked(false)
        seen.withLock {
            $0 = { got in
                if got == line,
                    once.withLock({ done in
                        defer { done = true }; return !done
                    })
                {
                    continuation.resume()
                }
            }
        }
        start()
    }
    seen.withLock { $0 = nil }
}

// MARK: - Overview

private func load() async throws -> Person {
    try await Person.read(id: 12)  // async: the value
}

private func loadLater() {
    Person.read(id: 12)  // Future: callbacks
        .onSuccess { person in show(person) }
        .onFailure { error in report(error) }
}

private func startBoth() async throws -> (Person, Person) {
    let later: Future<Person> = Person.read(id: 1)
    let now = try await Person.read(id: 2)
    return (try await later.value, now)
}

// MARK: - From one world to the other

private func bridges() async throws {
    let person = try await Person.read(id: 12).value
    let renamed = Future { try await Person(firstName: "Grace", lastName: "Hopper").create() }
    renamed.onSuccess { made in show(made) }
    _ = person
}

// MARK: - Chaining

private func rename(id: Int, to name: String) -> Future<Person> {
    Person.read(id: id)
        .flatMap { person in
            var renamed = person
            renamed.firstName = name
            return renamed.update(from: person)  // PATCH {"first_name": …}
        }
        .recover { error -> Future<Person> in
            guard (error as? CRUDError)?.isNotFound == true else { throw error }
            return Person(firstName: name, lastName: "").create()
        }
}

private func gather() -> Future<[Person]> {
    Future.all([Person.read(id: 1), Person.read(id: 2)])
        .zip(Person.all().collect())
        .map { pair, everyone in pair + everyone }
}

// MARK: - Cancelling

private func cancelSoon() {
    let reading = Person.read(id: 12)
    reading.onFailure { error in
        if (error as? CRUDError)?.isCancelled == true { /* the user moved on */  }
    }
    reading.cancel()
}

// MARK: - Making futures

private func askUser() -> Future<Bool> {
    let promise = Promise<Bool>()
    DispatchQueue.global().async { promise.succeed(true) }
    return promise.future
}

@Suite(.serialized) struct FuturesAndAsyncSamples {
    let backend = InMemoryBackend()
    let api: API

    init() {
        backend.register("people")
        for name in ["Ada", "Grace"] {
            backend.insert(["first_name": .string(name), "last_name": "L"], into: "people")
        }
        backend.insert(["id": 12, "first_name": "Alan", "last_name": "Turing"], into: "people")
        api = API(baseURL: URL(string: "https://api.example.com")!, transport: backend)
    }

    @Test func bothFormsReadThePerson() async throws {
        try await API.withShared(api) {
            #expect(try await load().firstName == "Alan")
            let (later, now) = try await startBoth()
            #expect([later.firstName, now.firstName] == ["Ada", "Grace"])
            await waitFor("show Alan") { loadLater() }
            await waitFor("show Grace") { Task { try await bridges() } }
        }
        #expect(backend.count(in: "people") == 4)
    }

    @Test func chainsRenameAndGather() async throws {
        try await API.withShared(api) {
            #expect(try await rename(id: 1, to: "Augusta").value.firstName == "Augusta")
            let created = try await rename(id: 99, to: "Mary").value
            #expect(created.firstName == "Mary")
            #expect(try await gather().value.count == 2 + 4)
            #expect(try await askUser().value)
            cancelSoon()
        }
        #expect(backend.recorder.summary.contains(#"PATCH /people/1"#))
        #expect(backend.recorder.summary.contains(#"POST /people"#))
    }
}
