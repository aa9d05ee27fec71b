import CRUDKit
import Foundation
import Testing

/// The same server through the `Future` overloads: callbacks, `flatMap` chains and failures.
@Suite("DRF interop: futures", DRFServer.enabled)
struct DRFFutureTests {
    @Test func createThenReadAsAFutureChain() async throws {
        try await withDRF { drf in
            // A write's Future overload is unavailable in async code (noasync): make it in a synchronous closure.
            let made: Future<Person> = { Person(firstName: "Ada", lastName: drf.tag, age: 36).create() }()
            let chain: Future<Person> = made.flatMap { person in
                drf.track(person)
                return person.read()
            }
            let person: Person = try await withCheckedThrowingContinuation { continuation in
                chain.onComplete { continuation.resume(with: $0) }
            }
            #expect(person.firstName == "Ada")
            #expect(person.lastName == drf.tag)
            #expect(drf.wire.exchanges.map(\.status) == [201, 200])
        }
    }

    @Test func listAndDeleteAsFutures() async throws {
        try await withDRF { drf in
            let ada = try await drf.makePerson("Ada")
            let listed: [Person] = try await Person.list(["last_name": .string(drf.tag)]).value
            #expect(listed == [ada])
            let deleted: Future<Okay> = { ada.delete() }()  // synchronous: the Future overload
            let okay: Okay = try await deleted.value
            #expect(okay == Okay())
        }
    }

    @Test func aFailedFutureCarriesTheCRUDError() async throws {
        try await withDRF { _ in
            let missing: Future<Person> = Person.read(id: 999_999_999)
            let error: (any Error)? = await withCheckedContinuation { continuation in
                missing.onComplete { result in
                    if case .failure(let error) = result {
                        continuation.resume(returning: error)
                    } else {
                        continuation.resume(returning: nil)
                    }
                }
            }
            let failure = try #require(error as? CRUDError)
            #expect(failure.isNotFound)
        }
    }
}
