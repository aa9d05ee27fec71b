import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

@Suite struct InMemoryBackendPaginationTests {
    private func backend(_ pagination: InMemoryBackend.Pagination, slash: Bool = false) -> InMemoryBackend {
        var style = slash ? InMemoryBackend.Style.drf : InMemoryBackend.Style()
        style.pagination = pagination
        let backend = makePeopleBackend(style)
        seedPeople(backend, count: 12)
        return backend
    }

    @Test func drfEnvelopeWithAbsoluteSortedLinks() async throws {
        let backend = backend(.envelope(), slash: true)

        let first = try await call(backend, .get, "/people/?page_size=5")
        let second = try await call(backend, .get, "/people/?page_size=5&page=2&age__gte=1")
        let last = try await call(backend, .get, "/people/?page=last&page_size=5")

        #expect(first.json["count"] == 12)
        #expect(first.json["next"] == .string(backendBase + "/people/?page=2&page_size=5"))
        #expect(first.json["previous"] == nil)
        #expect((first.json["results"].array ?? []).map(\.["id"]) == [1, 2, 3, 4, 5])
        #expect(second.json["previous"] == .string(backendBase + "/people/?age__gte=1&page_size=5"))
        #expect(second.json["next"] == .string(backendBase + "/people/?age__gte=1&page=3&page_size=5"))
        #expect((last.json["results"].array ?? []).map(\.["id"]) == [11, 12])
        #expect(last.json["next"] == nil)
        #expect(Array((first.json.object ?? JSON.Object()).keys) == ["count", "next", "previous", "results"])
    }

    @Test func drfEnvelopeSizesAndInvalidPages() async throws {
        let backend = backend(.envelope(pageSize: 10, maxPageSize: 4), slash: true)

        let capped = try await call(backend, .get, "/people/?page_size=1000")
        let junk = try await call(backend, .get, "/people/?page_size=junk")
        let past = try await call(backend, .get, "/people/?page=9")
        let zero = try await call(backend, .get, "/people/?page=0")
        let empty = try await call(backend, .get, "/people/?last_name=nobody")

        #expect((capped.json["results"].array ?? []).count == 4)
        #expect((junk.json["results"].array ?? []).count == 10)
        #expect(past.status == 404)
        #expect(past.json == ["detail": "Invalid page."])
        #expect(zero.status == 404)
        #expect(empty.json == ["count": 0, "next": nil, "previous": nil, "results": []])
    }

    @Test func followingNextVisitsEveryObjectOnce() async throws {
        let backend = backend(.envelope(pageSize: 5), slash: true)
        var url: URL? = URL(string: backendBase + "/people/")
        var ids: [JSON] = []
        while let next = url {
            let page = try await backend.send(HTTPRequest(url: next)).json
            ids += (page["results"].array ?? []).map(\.["id"])
            url = page["next"].string.flatMap(URL.init(string:))
        }
        #expect(ids == (1...12).map { JSON($0) })
    }

    @Test func linkHeaderAndTotalCount() async throws {
        let backend = backend(.linkHeader(pageSize: 5))

        let second = try await call(backend, .get, "/people?last_name__ne=x&page=2")
        let beyond = try await call(backend, .get, "/people?page=7")

        #expect((second.json.array ?? []).map(\.["id"]) == [6, 7, 8, 9, 10])
        #expect(second.headers["X-Total-Count"] == "12")
        let base = backendBase + "/people?last_name__ne=x&page="
        #expect(
            second.headers["Link"]
                == "<\(base)1>; rel=\"first\", <\(base)1>; rel=\"prev\", <\(base)3>; rel=\"next\", <\(base)3>; rel=\"last\""
        )
        #expect(beyond.json == [])
        #expect(beyond.headers["Link"]?.contains("rel=\"next\"") == false)
    }

    @Test func pageNumberAndOffsetGivePlainArrays() async throws {
        let paged = backend(.pageNumber(pageSize: 5))
        let offset = backend(.offset(limit: 4, offsetParameter: "skip"))
        let whole = backend(.none)

        let page3 = try await call(paged, .get, "/people?page=3")
        let sized = try await call(paged, .get, "/people?page=2&per_page=3")
        let skipped = try await call(offset, .get, "/people?skip=10")
        let limited = try await call(offset, .get, "/people?skip=1&limit=2")
        let all = try await call(whole, .get, "/people?page=2")

        #expect((page3.json.array ?? []).map(\.["id"]) == [11, 12])
        #expect((sized.json.array ?? []).map(\.["id"]) == [4, 5, 6])
        #expect((skipped.json.array ?? []).map(\.["id"]) == [11, 12])
        #expect((limited.json.array ?? []).map(\.["id"]) == [2, 3])
        #expect(page3.headers["Link"] == nil)
        #expect((all.json.array ?? []).count == 12)
    }
}
