import Dispatch
import Testing

@testable import CRUDKit

// The code samples of README's "Future" section, compiled here so the documentation cannot rot.
// Each sample is a function; the tests below run the ones that work offline.

private struct Person: Sendable {
    var id: Int
    var firstName: String

    static func read(id: Int) -> Future<Person> { Future(value: Person(id: id, firstName: "Ada")) }
    static func read(id: Int) async throws -> Person { try await read(id: id).value }
}

private func show(_ text: String) {}

// MARK: - README samples

private func readmeCallbacks() {
    Person.read(id: 12)
        .onSuccess { person in show(person.firstName) }
        .onFailure { error in show("\(error)") }
        .onComplete(on: .main) { _ in show("done") }
}

private func readmeChain() -> Future<String> {
    Person.read(id: 12)
        .map { $0.firstName }
        .recover { _ in "someone" }
}

private func readmeAwait() async throws -> String {
    let person = try await Person.read(id: 12)  // inside a function: the async overload
    let name = try await Person.read(id: 12).map { $0.firstName }.value  // any Future can be awaited
    return person.firstName + name
}

private func readmeUIApp() {
    Future.defaultCallbackQueue = .main  // once, at launch, in a UI app
}

private func readmePromise() -> Future<Int> {
    let promise = Promise<Int>()
    let work = Task {
        try await Task.sleep(nanoseconds: 1_000_000)  // stands for real work
        promise.succeed(42)
    }
    promise.onCancel { work.cancel() }  // stop the work when the future is cancelled
    return promise.future
}

private func readmeAsyncWork() -> Future<Person> {
    Future { try await Person.read(id: 12) }  // cancelling the future cancels this Task
}

private func readmeCancellation() {
    let request = Person.read(id: 12)
    let name = request.map { $0.firstName }
    name.cancel()  // `request` has no other observer, so it is cancelled too
}

private func readmeCombinators() -> Future<[Person]> {
    let both = Person.read(id: 1).zip(Person.read(id: 2))
    let first = Future.firstCompleted(of: [Person.read(id: 1), Person.read(id: 2)])
    _ = (both, first)
    return Future.all([Person.read(id: 1), Person.read(id: 2)])
}

@Suite struct FutureReadmeSampleTests {
    @Test func theOfflineSamplesRun() async throws {
        #expect(try await readmeChain().value == "Ada")
        #expect(try await readmeAwait() == "AdaAda")
        #expect(try await readmePromise().value == 42)
        #expect(try await readmeAsyncWork().value.id == 12)
        #expect(try await readmeCombinators().value.map { $0.id } == [1, 2])
        readmeCancellation()
        _ = readmeCallbacks
        _ = readmeUIApp
    }
}
