import CRUDKit
import Foundation
import Testing

/// Lists of `/people/`: DRF's `{count, next, previous, results}` envelope, `page_size`, `next` links followed by
/// `all`, and the `age__gte` / `age__lte` filters.
@Suite("DRF interop: lists", DRFServer.enabled)
struct DRFListTests {
    @Test func firstPageThenAllAcrossThreePages() async throws {
        try await withDRF { drf in
            var made: [Int] = []
            for index in 1...25 {
                let person = try await drf.makePerson("P\(index)", age: index)
                made.append(try #require(person.id))
            }
            let query: FormParameters = ["last_name": .string(drf.tag), "page_size": 10]

            let first: [Person] = try await Person.list(query)
            #expect(first.map(\.id) == made.prefix(10).map(Optional.some))

            let page: Page<Person> = try await Person.page(query)
            #expect(page.total == 25)
            #expect(page.items.count == 10)
            #expect(page.next != nil)
            let second = try #require(try await page.nextPage())
            #expect(second.items.map(\.id) == made[10..<20].map(Optional.some))

            let before = drf.wire.exchanges(.get).count
            let everyone = try await Person.all(query).collect()
            #expect(everyone.count == 25)
            #expect(Set(everyone.compactMap(\.id)).count == 25)
            #expect(everyone.compactMap(\.id) == made)
            #expect(everyone.allSatisfy { $0.lastName == drf.tag })

            // Three pages: the collection with the query, then the server's absolute `next` links.
            let walk = drf.wire.exchanges(.get).dropFirst(before)
            #expect(walk.count == 3)
            #expect(walk.map(\.path) == ["/people/", "/people/", "/people/"])
            #expect(walk.allSatisfy { $0.status == 200 })
            #expect(walk.map { $0.query?.contains("page=") ?? false } == [false, true, true])
        }
    }

    @Test func emptyListIsAnEmptyEnvelope() async throws {
        try await withDRF { drf in
            let page: Page<Person> = try await Person.page(["last_name": .string(drf.tag)])
            #expect(page.items.isEmpty)
            #expect(page.total == 0)
            #expect(page.next == nil)
            let everyone = try await Person.all(["last_name": .string(drf.tag)]).collect()
            #expect(everyone.isEmpty)
        }
    }

    @Test func filtersByAge() async throws {
        try await withDRF { drf in
            let young = try await drf.makePerson("Young", age: 10)
            let middle = try await drf.makePerson("Middle", age: 30)
            let old = try await drf.makePerson("Old", age: 50)
            _ = try await drf.makePerson("Unknown")  // age null: matches neither filter

            let atLeast30: [Person] = try await Person.list(["last_name": .string(drf.tag), "age__gte": 30])
            #expect(atLeast30.map(\.id) == [middle.id, old.id])
            let between: [Person] = try await Person.list([
                "last_name": .string(drf.tag), "age__gte": 5, "age__lte": 30,
            ])
            #expect(between.map(\.id) == [young.id, middle.id])

            let error = await #expect(throws: CRUDError.self) { () async throws -> [Person] in
                try await Person.list(["age__gte": "abc"])
            }
            #expect(error?.status == 400)
            #expect(error?.fieldErrors["age__gte"] == ["Enter a whole number."])
        }
    }
}
