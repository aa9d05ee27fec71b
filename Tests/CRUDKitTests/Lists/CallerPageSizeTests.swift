import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// A page size the caller asks for in the query (`all(["per_page": "7"])`) is the one the walk recognises the last
/// page by, smaller or larger than the configured one, in every pagination (issue 25, item 2).
@Suite struct CallerPageSizeTests {
    /// A pagination, the backend style serving it (pages of 10 by default) and the parameter that sizes a page.
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var pagination: CRUDKit.Pagination
        var style: InMemoryBackend.Style
        var sizeParameter: String
    }

    static let cases: [Case] = [
        Case(
            description: "pageNumber with pageSize",
            pagination: .pageNumber("page", sizeParameter: "per_page", pageSize: 10),
            style: InMemoryBackend.Style(pagination: .pageNumber(pageSize: 10)), sizeParameter: "per_page"),
        Case(
            description: "pageNumber without pageSize", pagination: .pageNumber("page", sizeParameter: "per_page"),
            style: InMemoryBackend.Style(pagination: .pageNumber(pageSize: 10)), sizeParameter: "per_page"),
        Case(
            description: "offset", pagination: .offset(limit: 10),
            style: InMemoryBackend.Style(pagination: .offset(limit: 10)), sizeParameter: "limit"),
        Case(
            description: "vapor", pagination: .vapor, style: InMemoryBackend.Style(pagination: .vaporPage(per: 10)),
            sizeParameter: "per"),
        Case(
            description: "laravel", pagination: .laravel,
            style: InMemoryBackend.Style(pagination: .laravel(perPage: 10)), sizeParameter: "per_page"),
        Case(
            description: "djangoREST", pagination: .djangoREST,
            style: InMemoryBackend.Style(trailingSlash: .either, pagination: .envelope(pageSize: 10)),
            sizeParameter: "page_size"),
        Case(
            description: "rails", pagination: .rails,
            style: InMemoryBackend.Style(pagination: .apiPagination(pageSize: 10)), sizeParameter: "per_page"),
        Case(
            description: "linkHeader", pagination: .linkHeader(),
            style: InMemoryBackend.Style(pagination: .linkHeader(pageSize: 10)), sizeParameter: "per_page"),
        Case(
            description: "automatic on FastAPI", pagination: .automatic,
            style: InMemoryBackend.Style(pagination: .offsetLinkHeader(limit: 10)), sizeParameter: "limit"),
        Case(
            description: "automatic on Vapor", pagination: .automatic,
            style: InMemoryBackend.Style(pagination: .vaporPage(per: 10)), sizeParameter: "per"),
        Case(
            description: "automatic on Laravel", pagination: .automatic,
            style: InMemoryBackend.Style(pagination: .laravel(perPage: 10)), sizeParameter: "per_page"),
    ]

    @Test(arguments: cases, [7, 13])
    func theCallersPageSizeWalksEveryItem(_ walk: Case, size: Int) async throws {
        let backend = numberedBackend(walk.style, count: 24)
        let scope = numberedScope(backend, pagination: walk.pagination)

        let items = try await scope.all([walk.sizeParameter: .string(String(size))]).collect().map(\.n)

        #expect(items == Array(1...24))
        let asked = backend.recorder.requests.compactMap { $0.query[walk.sizeParameter] }
        #expect(asked.first == String(size))
        // Pages of `size` need ⌈24 / size⌉ requests, and at most one more to see the end.
        let needed = (24 + size - 1) / size
        #expect((needed...needed + 1).contains(backend.recorder.requests.count))
    }
}
