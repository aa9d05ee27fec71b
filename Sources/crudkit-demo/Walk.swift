import CRUDKit
import Foundation

/// The people of the walk and the checks both walks (async/await and Futures) apply to what they get.
///
/// Every check throws a ``StepFailure`` saying what was expected and what came, or returns the line printed
/// under the step.
struct Walk: Sendable {
    let reporter: Reporter
    let options: Options
    /// The people the walk made and has not deleted yet: what ``cleanUp()`` deletes when a step fails.
    let made = Ledger()

    /// The person walked through every operation.
    let ada = Person(firstName: "Ada", lastName: "Lovelace", age: 36, email: "ada@example.com")
    /// Two more people, so that the all-pages step crosses pages.
    let relatives = [
        Person(firstName: "Anne", lastName: "Lovelace", age: 12, email: "anne@example.com"),
        Person(firstName: "Ralph", lastName: "Lovelace", age: 9, email: "ralph@example.com"),
    ]
    /// A person the server must refuse: a negative age.
    let invalid = Person(firstName: "Charles", lastName: "Babbage", age: -1, email: "charles@example.com")

    /// The list filter: only the walk's own people.
    var listQuery: FormParameters { [options.preset.lastNameKey: "Lovelace"] }
    /// The all-pages query: the filter and a small page size, in the server's own page-size parameter.
    var pagesQuery: FormParameters {
        [options.preset.lastNameKey: "Lovelace", options.pageSizeParameter: .string(String(options.pageSize))]
    }
    /// The colour the PATCH step sets: `nil` (cleared), or a colour where a `PATCH` cannot clear (Vapor).
    var patchedColor: String? { options.preset.patchClears ? nil : "blue" }

    // MARK: - Cleaning up

    /// Deletes every person the walk made and has not deleted yet, so that a failed walk leaves nothing behind.
    /// - Returns: What it did, in one line.
    func cleanUp() async -> String {
        let ids = made.ids
        guard !ids.isEmpty else { return "cleanup: nothing left to delete" }
        var failures: [String] = []
        for id in ids {
            do {
                try await Person.delete(id: id)
                made.forget(id)
            } catch let error as CRUDError where error.isNotFound {
                made.forget(id)
            } catch {
                failures.append("\(id): \(Self.describe(error))")
            }
        }
        let deleted = ids.count - failures.count
        if failures.isEmpty { return "cleanup: deleted the \(deleted) person(s) the walk made" }
        return "cleanup: deleted \(deleted) of the \(ids.count) person(s) the walk made; could not delete "
            + failures.joined(separator: "; ")
    }

    // MARK: - Checks

    /// The id the server gave `person`.
    func id(of person: Person) throws -> PersonID {
        guard let id = person.id else { throw StepFailure(description: "\(person.name) came back without an id") }
        return id
    }

    func checkCreated(_ made: Person) throws -> String {
        try expectExchanges(["POST"], statuses: options.preset.createdStatuses)
        let id = try id(of: made)
        try expectSameFields(made, ada)
        return "\(made.name) created with id \(id)"
    }

    func checkRead(_ read: Person, expected made: Person) throws -> String {
        try expectExchanges(["GET"], statuses: [200])
        try expect(read.id == made.id, "read id \(read.id?.description ?? "nil"), expected \(try id(of: made))")
        try expectSameFields(read, made)
        return "read back \(read.name), age \(read.age.map(String.init) ?? "nil")"
    }

    func checkListed(_ people: [Person], containing made: Person) throws -> String {
        try expectExchanges(["GET"], statuses: [200])
        let id = try id(of: made)
        try expect(people.contains { $0.id == id }, "the list of Lovelaces does not hold id \(id)")
        try expect(people.allSatisfy { $0.lastName == "Lovelace" }, "the list filter ?last_name= was not applied")
        return "the list filtered by last_name holds \(people.count) person(s), id \(id) among them"
    }

    func checkReplaced(_ replaced: Person, sent: Person) throws -> String {
        try expectExchanges(["PUT"], statuses: [200])
        try expect(replaced.id == sent.id, "PUT answered another id")
        try expectSameFields(replaced, sent)
        return "PUT set age \(replaced.age.map(String.init) ?? "nil") and favorite_color "
            + (replaced.favoriteColor ?? "nil")
    }

    func checkPatched(_ patched: Person, sent: Person, original: Person) throws -> String {
        try expectExchanges(["PATCH"], statuses: [200])
        let patch = try Person.scope.patch(for: sent, from: original)
        let key = options.preset.favoriteColorKey
        let expected: JSON = patchedColor.map { [key: JSON.string($0)] } ?? [key: nil]
        try expect(patch == expected, "the PATCH body was \(patch), not \(expected)")
        try expect(
            patched.favoriteColor == patchedColor, "\(key) is \(patched.favoriteColor ?? "nil") after PATCH")
        try expectSameFields(patched, sent)
        return "PATCH sent only \(patch); the server's copy agrees"
    }

    func checkAllPages(_ everyone: [Person], created: [Person]) throws -> String {
        let gets = reporter.exchanges.filter { $0.method == .get }
        try expect(gets.allSatisfy { $0.status == 200 }, "a page did not answer 200")
        let ids = try created.map(id(of:))
        let seen = everyone.compactMap(\.id)
        try expect(Set(seen).count == seen.count, "a person came twice across pages: \(seen)")
        try expect(Set(ids).isSubset(of: seen), "all pages hold \(seen), expected \(ids) among them")
        let pagesExpected = (everyone.count + options.pageSize - 1) / options.pageSize
        try expect(
            gets.count >= pagesExpected,
            "\(everyone.count) people in pages of \(options.pageSize) came in \(gets.count) request(s)")
        return "\(everyone.count) people across \(gets.count) pages of \(options.pageSize)"
    }

    func checkRejected(_ outcome: Result<Person, any Error>) throws -> String {
        let error: CRUDError
        switch outcome {
        case .success(let made):
            throw StepFailure(description: "a negative age was accepted (id \(made.id?.description ?? "nil"))")
        case .failure(let failure as CRUDError):
            error = failure
        case .failure(let other):
            throw other
        }
        try expect(error.status == 400 || error.status == 422, "a negative age answered \(Self.describe(error))")
        let ageErrors = error.fieldErrors["age"] ?? []
        if ageErrors.isEmpty, let message = error.serverMessage, message.contains("age") {
            return "\(error.status ?? 0) with the message: \(message)"  // Vapor: one `reason`, no fields
        }
        try expect(!ageErrors.isEmpty, "no field error for age in \(error.fieldErrors)")
        return "\(error.status ?? 0) with field errors: age: \(ageErrors.joined(separator: " "))"
    }

    func checkDeleted(_ okay: Okay, count: Int) throws -> String {
        try expectExchanges(Array(repeating: "DELETE", count: count), statuses: [200, 202, 204])
        return "deleted \(count) people"
    }

    func checkNotFound(_ outcome: Result<Person, any Error>, id: PersonID) throws -> String {
        switch outcome {
        case .success:
            throw StepFailure(description: "person \(id) can still be read after delete")
        case .failure(let error as CRUDError) where error.isNotFound:
            return "404 for the deleted id \(id): \(error.serverMessage ?? "no message")"
        case .failure(let error):
            throw StepFailure(description: "reading a deleted person failed with \(Self.describe(error)), not 404")
        }
    }

    // MARK: - Helpers

    func expect(_ condition: Bool, _ message: @autoclosure () throws -> String) throws {
        if !condition { throw StepFailure(description: try message()) }
    }

    /// The step's exchanges have these methods, each with one of `statuses`.
    func expectExchanges(_ methods: [String], statuses: Set<Int>) throws {
        let exchanges = reporter.exchanges
        let seen = exchanges.map { "\($0.method) \($0.status.map(String.init) ?? "no answer")" }
        try expect(
            exchanges.map(\.method.rawValue) == methods && exchanges.allSatisfy { statuses.contains($0.status ?? 0) },
            "expected \(methods.joined(separator: ", ")) answered \(statuses.sorted()), got \(seen)")
    }

    /// The fields the walk sets are the same in both.
    func expectSameFields(_ got: Person, _ expected: Person) throws {
        let fields: [(String, String?, String?)] = [
            ("first_name", got.firstName, expected.firstName), ("last_name", got.lastName, expected.lastName),
            ("age", got.age.map(String.init), expected.age.map(String.init)), ("email", got.email, expected.email),
            ("favorite_color", got.favoriteColor, expected.favoriteColor),
        ]
        for (name, mine, theirs) in fields where mine != theirs {
            throw StepFailure(description: "\(name) is \(mine ?? "nil"), expected \(theirs ?? "nil")")
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? CRUDError { return error.localizedDescription }
        return String(describing: error)
    }
}

/// The ids of the people a walk made and has not deleted yet.
final class Ledger: Sendable {
    private let state = Locked<[PersonID]>([])

    /// The ids, in the order they were made.
    var ids: [PersonID] { state.withLock { $0 } }

    /// Notes that `person` was made on the server (ignored without an id).
    func record(_ person: Person) {
        guard let id = person.id else { return }
        state.withLock { if !$0.contains(id) { $0.append(id) } }
    }

    /// Notes that the person with `id` is gone.
    func forget(_ id: PersonID) {
        state.withLock { $0.removeAll { $0 == id } }
    }
}
