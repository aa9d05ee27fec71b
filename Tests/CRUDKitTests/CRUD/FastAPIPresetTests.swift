import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// FastAPI: no trailing slash, `?offset=&limit=` with `Link` and `x-total-count`, 422 `detail` arrays; the
/// `.fastAPI` preset and `InMemoryBackend(style: .fastAPI)` agree, so a test against the backend walks like the
/// real server (issue 15, item 12).
@Suite struct FastAPIPresetTests {
    private static let base = URL(string: "https://api.example.com/v1")!

    private func backend(count: Int, limit: Int) -> InMemoryBackend {
        var style = InMemoryBackend.Style.fastAPI
        style.pagination = .offsetLinkHeader(limit: limit, maxLimit: limit)
        let backend = makePeopleBackend(style)
        seedPeople(backend, count: count)
        return backend
    }

    @Test func theBackendPagesWithOffsetLimitLinkAndTotal() async throws {
        let backend = backend(count: 5, limit: 2)

        let first = try await call(backend, .get, "/people?age_gte=1")
        let middle = try await call(backend, .get, "/people?offset=2&limit=2")
        let last = try await call(backend, .get, "/people?offset=4&limit=50")

        #expect((first.json.array ?? []).map(\.["id"]) == [1, 2])
        #expect(first.headers["X-Total-Count"] == "5")
        #expect(
            first.headers["Link"]
                == "<\(backendBase)/people?age_gte=1&offset=2>; rel=\"next\", "
                + "<\(backendBase)/people?age_gte=1&offset=4>; rel=\"last\"")
        #expect(
            middle.headers["Link"]
                == "<\(backendBase)/people?offset=0&limit=2>; rel=\"first\", "
                + "<\(backendBase)/people?offset=0&limit=2>; rel=\"prev\", "
                + "<\(backendBase)/people?offset=4&limit=2>; rel=\"next\", "
                + "<\(backendBase)/people?offset=4&limit=2>; rel=\"last\"")
        #expect((last.json.array ?? []).map(\.["id"]) == [5])
        #expect(last.headers["Link"]?.contains("rel=\"next\"") == false)
    }

    @Test func thePresetWalksEveryPageTheServerCaps() async throws {
        // The server answers 2 of 3 per page: the walk follows `Link` to the third.
        let server = backend(count: 3, limit: 2)
        let people = Member.using(API(baseURL: Self.base, conventions: .fastAPI, transport: server))

        let page = try await people.page()
        var everyone: [Member] = []
        for try await person in people.all() { everyone.append(person) }

        #expect(page.total == 3)
        #expect(everyone.map(\.id) == [1, 2, 3])
        #expect(server.recorder.requests.allSatisfy { !$0.path.hasSuffix("/") })
    }

    @Test func thePresetReadsFastAPIErrorsAndListsAndPaths() async throws {
        let server = backend(count: 1, limit: 10)
        let api = API(baseURL: Self.base, conventions: .fastAPI, transport: server)

        let error = await #expect(throws: CRUDError.self) {
            try await Member.using(api).create(Member(firstName: "Same", lastName: "Same", age: -1))
        }
        let details = api.serverErrors(in: try #require(error))
        _ = try await Member.using(api).list(["tags": .list(["a", "b"])])

        #expect(error?.status == 422)
        #expect(details?.fieldErrors["age"]?.isEmpty == false)
        #expect(server.recorder.last?.queryValues("tags") == ["a", "b"])
        #expect(APIConventions.fastAPI.trailingSlash == .never)
    }
}
