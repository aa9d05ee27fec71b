import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// A walk over every page (`all()`) never ends short in silence: it reaches the total the server declared, or
/// fails with `CRUDError.incompleteList` naming what it saw and the pagination that would fit (issue 25, item 1).
@Suite struct ListGuardTests {
    /// Every style of the in-memory backend, walked with the automatic pagination and with its own preset.
    static let styles: [(name: String, style: InMemoryBackend.Style, preset: APIConventions)] = [
        ("plain", InMemoryBackend.Style(), .standard),
        ("drf", .drf, .djangoREST),
        ("rails", .rails, .rails),
        ("fastAPI", .fastAPI, .fastAPI),
        ("vapor", .vapor, .vapor),
        ("laravel", .laravel, .laravel),
    ]

    @Test(arguments: 0..<6)
    func everyStyleIsWalkedWholeAutomaticallyAndByItsPreset(index: Int) async throws {
        let (name, style, preset) = Self.styles[index]
        for count in [24, 25, 30, 0] {
            let backend = numberedBackend(style, count: count)
            for conventions in [APIConventions.standard, preset] {
                var conventions = conventions
                conventions.trailingSlash = preset.trailingSlash
                let scope = numberedScope(backend, conventions: conventions)
                let items = try await scope.all().collect().map(\.n)
                #expect(items == Array(0..<count).map { $0 + 1 }, "\(name), \(count) items, \(conventions.name)")
            }
        }
    }

    /// Vapor's Fluent envelope with the default pagination used to give 10 of 24.
    @Test func fluentWithTheAutomaticPaginationWalksAll24() async throws {
        let backend = numberedBackend(.vapor, count: 24)
        let items = try await numberedScope(backend).all().collect()
        #expect(items.count == 24)
        let pages = backend.recorder.requests.map { $0.request.url.query ?? "" }
        #expect(pages == ["", "page=2", "page=3"])
    }

    /// Laravel's `{data, links, meta}` with the default pagination used to give 15 of 25.
    @Test func laravelWithTheAutomaticPaginationWalksAll25() async throws {
        let backend = numberedBackend(.laravel, count: 25)
        let items = try await numberedScope(backend).all(["n__gte": "1"]).collect()
        #expect(items.count == 25)
        // The filter stays on every page, although Laravel's own links drop it.
        #expect(backend.recorder.requests.map { $0.request.url.query ?? "" } == ["n__gte=1", "n__gte=1&page=2"])
    }

    @Test func anEnvelopeWithoutANextKeyFailsNamingTheTotalAndThePresetThatFits() async throws {
        let backend = numberedBackend(.vapor, count: 24)
        let scope = numberedScope(backend, pagination: .envelope(items: "items", next: nil, total: "metadata.total"))

        let (items, found) = await shortfall(of: scope.all())

        #expect(items == Array(1...10))  // the items received are handed out before the failure
        let shortfall = try #require(found)
        #expect(shortfall.received == 10 && shortfall.declaredTotal == 24 && shortfall.pages == 1)
        #expect(shortfall.resource == "Numbered")
        #expect(shortfall.signals.contains("`metadata.total` 24 in the body"))
        #expect(shortfall.suggestion.contains("Pagination.vapor"))
        let text = CRUDError.incompleteList(shortfall).description
        #expect(text.hasPrefix("The list is incomplete: the list of Numbered ended after 10 items in 1 page but the"))
        #expect(text.contains("declared 24"))
    }

    @Test func aFullPageWithNoWayToTheNextFailsWithoutATotal() async throws {
        // Laravel's simplePaginate: no total, `meta.per_page`; the pagination reads a `next` the body lacks.
        let body: JSON = [
            "data": .array((1...15).map { ["id": JSON($0), "n": JSON($0)] }),
            "links": ["next": "https://api.example.com/people?page=2"], "meta": ["per_page": 15],
        ]
        let server = StubTransport().on(.get, "people", .json(body))
        let scope = numberedScope(server, pagination: .envelope(items: "data", next: "next", total: nil))

        let (items, found) = await shortfall(of: scope.all())

        #expect(items.count == 15)
        let shortfall = try #require(found)
        #expect(shortfall.declaredTotal == nil && shortfall.pageSize == 15 && shortfall.lastPageCount == 15)
        #expect(shortfall.signals.contains("no `next`"))
        #expect(shortfall.suggestion.contains("links.next"))
    }

    @Test func listStillAnswersTheFirstPage() async throws {
        let backend = numberedBackend(.vapor, count: 24)
        let scope = numberedScope(backend, pagination: .envelope(items: "items", next: nil, total: "metadata.total"))
        #expect(try await scope.list().count == 10)
        #expect(try await scope.page().total == 24)
    }

    // MARK: - No false alarms

    @Test func anExactlyFullLastPageWithANullNextEndsQuietly() async throws {
        var style = InMemoryBackend.Style.drf
        style.pagination = .envelope(pageSize: 10)
        let backend = numberedBackend(style, count: 20)
        let scope = numberedScope(backend, conventions: .djangoREST, pagination: .envelope(items: "results"))
        #expect(try await scope.all().collect().count == 20)
    }

    @Test func aShortPageWithNoSignalsAtAllIsTheEnd() async throws {
        let backend = numberedBackend(InMemoryBackend.Style(pagination: .pageNumber(pageSize: 10)), count: 7)
        #expect(try await numberedScope(backend).all().collect().count == 7)
        let paged = numberedScope(backend, pagination: .pageNumber("page", sizeParameter: "per_page", pageSize: 10))
        #expect(try await paged.all().collect().count == 7)
    }

    @Test func aTotalThatGrowsOrShrinksDuringTheWalkIsNoAlarm() async throws {
        let page = Self.page
        let second = "https://api.example.com/people?page=2"
        // Created during the walk: the last page says 23 and 23 came.
        let growing = StubTransport().on(.get, "people") { request in
            request.recorded.query["page"] == "2" ? page(11...23, 23, nil) : page(1...10, 20, second)
        }
        #expect(try await numberedScope(growing).all().collect().count == 23)
        // Deleted during the walk: more came than the last page's total.
        let shrinking = StubTransport().on(.get, "people") { request in
            request.recorded.query["page"] == "2" ? page(11...19, 18, nil) : page(1...10, 20, second)
        }
        #expect(try await numberedScope(shrinking).all().collect().count == 19)
    }

    /// A DRF-shaped page of the rows `range`, declaring `total`.
    @Sendable private static func page(_ range: ClosedRange<Int>, _ total: Int, _ next: String?) -> StubResponse {
        let items: [JSON] = range.map { ["id": JSON($0), "n": JSON($0)] }
        return .json(["results": .array(items), "count": JSON(total), "next": next.map(JSON.string) ?? .null])
    }

    // MARK: - Hostile servers

    @Test func aTotalBiggerThanTheListFailsLoudly() async throws {
        let rows: [JSON] = (1...5).map { ["id": JSON($0), "n": JSON($0)] }
        let server = StubTransport().on(.get, "people", .json(.array(rows), headers: ["X-Total-Count": "50"]))
        let (items, found) = await shortfall(of: numberedScope(server).all())
        #expect(items.count == 5)
        #expect(found?.declaredTotal == 50 && found?.signals.first == "`X-Total-Count` header 50")
    }

    @Test func aTotalSmallerThanTheListDoesNotCutTheWalk() async throws {
        let backend = numberedBackend(.rails, count: 30)  // Link pages of 25
        let liar = StubTransport().on(.get, "people") { request in
            var response = try await backend.send(request.request)
            response.headers["Total"] = "5"
            return StubResponse(response)
        }
        #expect(try await numberedScope(liar, conventions: .rails).all().collect().count == 30)
    }

    @Test func hugeNegativeAndZeroLastPageNumbersNeverCrashOrEndSilently() async throws {
        let rows: [JSON] = (1...3).map { ["id": JSON($0), "n": JSON($0)] }
        let huge = StubTransport().on(.get, "people", .json(["results": .array(rows), "count": JSON(Int.max)]))
        let (_, hugeShortfall) = await shortfall(of: numberedScope(huge).all())
        #expect(hugeShortfall?.declaredTotal == Int.max)
        #expect(CRUDError.incompleteList(try #require(hugeShortfall)).description.contains("9223372036854775807"))

        // A negative total is no total: three items in one answer, nothing more said, is the whole list.
        let negative = StubTransport().on(.get, "people", .json(["results": .array(rows), "count": -4]))
        #expect(try await numberedScope(negative).all().collect().count == 3)

        // Laravel's `last_page` 0 with a total of 25: the walk stops, and says it is short.
        let laravel: JSON = [
            "data": .array(rows), "links": ["next": .null],
            "meta": ["current_page": 1, "last_page": 0, "per_page": 3, "total": 25],
        ]
        let zero = StubTransport().on(.get, "people", .json(laravel))
        let (_, zeroShortfall) = await shortfall(of: numberedScope(zero).all())
        #expect(zeroShortfall?.received == 3 && zeroShortfall?.declaredTotal == 25)
    }

    @Test func aServerIgnoringThePageNumberFailsInsteadOfEndingAfterOnePage() async throws {
        let rows: [JSON] = (1...10).map { ["id": JSON($0), "n": JSON($0)] }
        let server = StubTransport().on(.get, "people", .json(.array(rows), headers: ["X-Total-Count": "30"]))
        let scope = numberedScope(server, pagination: .pageNumber("page", sizeParameter: "per_page", pageSize: 10))
        let (items, found) = await shortfall(of: scope.all())
        #expect(items.count == 10)  // the repeated page is not handed out again
        #expect(found?.received == 10 && found?.declaredTotal == 30 && found?.pages == 2)
    }

    @Test func aCappedPageSizeIsWalkedWhole() async throws {
        // Asked for 100, served 50, total 120: page numbers and offsets both reach all 120.
        let capped = { (backend: InMemoryBackend, size: String) in
            StubTransport().on(.get, "people") { request in
                var http = request.request
                let asked = request.recorded.query[size].flatMap { Int($0) } ?? 50
                let query = request.recorded.queryItems.map {
                    $0.name == size ? "\(size)=\(min(asked, 50))" : "\($0.name)=\($0.value)"
                }
                http.url = URL(string: "https://api.example.com/people?" + query.joined(separator: "&"))!
                var response = try await backend.send(http)
                response.headers["X-Total-Count"] = "120"
                return StubResponse(response)
            }
        }
        let pages = numberedBackend(InMemoryBackend.Style(pagination: .pageNumber(pageSize: 50)), count: 120)
        let byPage = numberedScope(
            capped(pages, "per_page"), pagination: .pageNumber("page", sizeParameter: "per_page", pageSize: 100))
        #expect(try await byPage.all().collect().map(\.n) == Array(1...120))

        let offsets = numberedBackend(InMemoryBackend.Style(pagination: .offset(limit: 50)), count: 120)
        let byOffset = numberedScope(capped(offsets, "limit"), pagination: .offset(limit: 100))
        #expect(try await byOffset.all().collect().map(\.n) == Array(1...120))
    }

    @Test func aNextLinkToAnotherOriginIsStillRefused() async throws {
        let rows: [JSON] = [["id": 1, "n": 1]]
        let server = StubTransport().on(
            .get, "people",
            .json(["results": .array(rows), "next": "https://evil.example.net/people?page=2", "count": 2]))
        let error = await crudError { try await numberedScope(server).all().collect() }
        guard case .invalidRequest(let reason)? = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("evil.example.net"))
    }
}
