import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// Numbers from a request never overflow the backend (issue 12, item 7): each is checked and a number out of range
/// answers as the framework would.
@Suite struct InMemoryBackendOverflowTests {
    private func backend(_ style: InMemoryBackend.Style) -> InMemoryBackend {
        let backend = makePeopleBackend(style)
        seedPeople(backend, count: 3)
        return backend
    }

    @Test func railsPageSizeOutOfRangeIs400() async throws {
        let answer = try await call(backend(.rails), .get, "/people?page=2&per_page=9223372036854775807")
        #expect(answer.status == 400)
        #expect(answer.json["error"] == "Bad Request")
        let huge = try await call(backend(.rails), .get, "/people?page=99999999999999999999999")
        #expect(huge.status == 400)
    }

    @Test func linkHeaderPageOutOfRangeIs400() async throws {
        var style = InMemoryBackend.Style()
        style.pagination = .linkHeader()
        let answer = try await call(backend(style), .get, "/people?page=9223372036854775807")
        #expect(answer.status == 400)
        let largest = try await call(backend(style), .get, "/people?page=\(InMemoryBackend.largestQueryNumber)")
        #expect(largest.status == 200 && largest.json == [])
    }

    @Test func drfCapsAHugePageSizeAndRefusesAHugePage() async throws {
        var style = InMemoryBackend.Style.drf
        style.pagination = .envelope(pageSize: 2, maxPageSize: .max)
        let sized = try await call(backend(style), .get, "/people/?page_size=9223372036854775807")
        #expect(sized.status == 200 && (sized.json["results"].array ?? []).count == 3)
        let page = try await call(backend(style), .get, "/people/?page=9223372036854775807&page_size=2")
        #expect(page.status == 404 && page.json == ["detail": "Invalid page."])
    }

    @Test func fastAPIOffsetOutOfRangeIs422WithDetail() async throws {
        let answer = try await call(
            backend(.fastAPI), .get, "/people?offset=9223372036854775807&limit=9223372036854775807")
        #expect(answer.status == 422)
        #expect(answer.json["detail"][0]["loc"] == ["query", "offset"])
        let fine = try await call(
            backend(.fastAPI), .get, "/people?offset=1&limit=\(InMemoryBackend.largestQueryNumber)")
        #expect((fine.json.array ?? []).count == 2)
    }
}
