import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// Rails with api-pagination (kaminari or pagy): a plain array, `Link` first/prev/next/last, the total in `Total`
/// and the page size in `Per-Page`, for `?page=&per_page=` (issue 15, item 3).
@Suite struct RailsPaginationTests {
    private static let base = URL(string: "https://api.example.com/v1")!

    private func backend(count: Int, pageSize: Int = 25) -> InMemoryBackend {
        var style = InMemoryBackend.Style.rails
        style.pagination = .apiPagination(pageSize: pageSize, maxPageSize: 100)
        let backend = makePeopleBackend(style)
        seedPeople(backend, count: count)
        return backend
    }

    @Test func theRailsStyleAnswersLikeAPIPagination() async throws {
        var style = InMemoryBackend.Style.rails
        style.pagination = .apiPagination(maxPageSize: 100)  // an app that sets max_per_page (api-pagination has none)
        let backend = makePeopleBackend(style)
        seedPeople(backend, count: 7)

        let first = try await call(backend, .get, "/people?per_page=3&age_gte=1")
        let middle = try await call(backend, .get, "/people?per_page=3&page=2")
        let last = try await call(backend, .get, "/people?per_page=3&page=3")
        let capped = try await call(backend, .get, "/people?per_page=1000")
        let past = try await call(backend, .get, "/people?page=9")

        #expect((first.json.array ?? []).map(\.["id"]) == [1, 2, 3])
        #expect(first.headers["Total"] == "7")
        #expect(first.headers["Per-Page"] == "3")
        #expect(first.headers["X-Total-Count"] == nil)
        #expect(
            first.headers["Link"]
                == "<\(backendBase)/people?per_page=3&age_gte=1&page=2>; rel=\"next\", "
                + "<\(backendBase)/people?per_page=3&age_gte=1&page=3>; rel=\"last\"")
        #expect(
            middle.headers["Link"]
                == "<\(backendBase)/people?per_page=3&page=1>; rel=\"first\", "
                + "<\(backendBase)/people?per_page=3&page=1>; rel=\"prev\", "
                + "<\(backendBase)/people?per_page=3&page=3>; rel=\"next\", "
                + "<\(backendBase)/people?per_page=3&page=3>; rel=\"last\"")
        #expect((last.json.array ?? []).map(\.["id"]) == [7])
        #expect(last.headers["Link"]?.contains("rel=\"next\"") == false)
        #expect(capped.headers["Per-Page"] == "100")
        #expect(capped.headers["Link"] == nil)
        #expect(past.json == [])
    }

    @Test func theRailsPresetReadsTotalAndWalksEveryPage() async throws {
        let server = backend(count: 7, pageSize: 3)
        let people = Member.using(API(baseURL: Self.base, conventions: .rails, transport: server))

        let page = try await people.page()
        var everyone: [Member] = []
        for try await person in people.all() { everyone.append(person) }

        #expect(page.items.count == 3)
        #expect(page.total == 7)
        #expect(everyone.map(\.id) == [1, 2, 3, 4, 5, 6, 7])
        #expect(server.recorder.count(.get, "people") == 4)
    }

    @Test func theRailsPresetNamesItsHeaders() async throws {
        let pagination = APIConventions.rails.pagination
        #expect(pagination.totalHeaders == ["X-Total-Count", "Total"])
        #expect(pagination.pageSizeHeader == "Per-Page")
    }

    @Test func pageNumbersStopAtAShortPageByPerPage() async throws {
        // A page-number walk that does not set its own size learns it from `Per-Page`: the short third page
        // is the last, with no request for a fourth.
        let server = backend(count: 7, pageSize: 3)
        var conventions = APIConventions.rails
        conventions.pagination = Pagination(
            .pageNumber(parameter: "page", firstPage: 1, sizeParameter: nil, pageSize: nil), totalHeaders: [],
            pageSizeHeader: "Per-Page")
        let people = Member.using(API(baseURL: Self.base, conventions: conventions, transport: server))

        var everyone: [Member] = []
        for try await person in people.all() { everyone.append(person) }

        #expect(everyone.count == 7)
        #expect(server.recorder.count(.get, "people") == 3)
    }
}
