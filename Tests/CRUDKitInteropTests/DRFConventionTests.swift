import CRUDKit
import Foundation
import Testing

/// What `.djangoREST` is for, shown against the server: a page size in the pagination settings, and what
/// happens to the same calls without the trailing slash.
@Suite("DRF interop: conventions", DRFServer.enabled)
struct DRFConventionTests {
    @Test func pageSizeFromThePaginationSettings() async throws {
        try await withDRF { drf in
            var made: [Int] = []
            for index in 1...21 {
                made.append(try #require(try await drf.makePerson("P\(index)").id))
            }
            let before = drf.wire.exchanges(.get).count
            let everyone = try await PagedPerson.all(["last_name": .string(drf.tag)]).collect()
            #expect(everyone.compactMap(\.id) == made)
            let walk = drf.wire.exchanges(.get).dropFirst(before)
            // Three pages (10, 10, 1), the third known to be the last from `count`: no fourth request (a 404).
            #expect(walk.count == 3)
            #expect(walk.allSatisfy { $0.status == 200 && $0.query?.contains("page_size=10") == true })
        }
    }

    @Test func withoutTheTrailingSlashDRFRedirectsAndAWriteFails() async throws {
        try await withDRF { drf in
            let ada = try await drf.makePerson("Ada")
            let id = try #require(ada.id)
            let bareWire = WireLog()
            let bare = drf.api.with {
                $0.conventions.trailingSlash = .never
                $0.middleware.insert(LoggingMiddleware(bareWire.handler))
            }

            // A read is redirected (301, Location `/people/12/`) and followed by the transport.
            let read: Person = try await Person.using(bare).read(id: id)
            #expect(read == ada)

            // A write is not followed (that would lose its body): the 301 is the error, and nothing changed.
            let error = await #expect(throws: CRUDError.self) { () async throws -> Okay in
                try await Person.using(bare).delete(id: id)
            }
            #expect(error?.status == 301)
            #expect(error?.response?.headers["Location"] == "/people/\(id)/")
            // Read back through the API with the trailing slash (`ada.read()` would go through `bare`, the API this
            // record was read through last: both are one origin, the same server).
            let still: Person = try await Person.using(drf.api).read(id: id)
            #expect(still == ada)

            #expect(bareWire.exchanges.map(\.description) == ["GET /people/\(id) → 200", "DELETE /people/\(id) → 301"])
        }
    }
}
