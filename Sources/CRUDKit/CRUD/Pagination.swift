import Foundation

/// How a server splits a list into pages, and so how ``Enumeratable/page(_:)->Page<Self>`` finds the items, the
/// total and the next page, and how ``Enumeratable/all(_:)`` walks them.
///
/// ``automatic`` (the default) recognises by itself a plain array, an envelope with `results`/`data`/`items`
/// (and `next`, `count`/`total`), an envelope that numbers its pages (Vapor Fluent's `metadata: {page, per,
/// total}`, Laravel's `meta: {current_page, last_page, per_page, total}`, asked for page by page), `links.next`
/// with `meta.total`, an RFC 8288 `Link: <…>; rel="next"` header and an `X-Total-Count` header, so only unusual
/// servers need configuring, per API (``APIConventions/pagination``) or per model (the ``APIConventions/pagination``
/// of its ``CRUDResource/conventions(from:)``).
///
/// Whatever the pagination, ``Enumeratable/all(_:)`` never ends short in silence: a walk that would end with fewer
/// items than the server declared, or on a full page with no way to ask for the next one, fails with
/// ``CRUDError/incompleteList(_:)`` naming what it saw and the pagination that would fit.
///
/// ```swift
/// api.with { $0.pagination = .offset(limit: 50) }              // ?offset=0&limit=50, then 50, 100…
/// api.with { $0.pagination = .envelope(items: "data.people", next: "links.next", total: "meta.total") }
/// ```
public struct Pagination: Sendable, Hashable {
    /// The kinds of pagination.
    package enum Style: Sendable, Hashable {
        /// Envelope or `Link` header, whichever the answer has; a plain array is one page.
        case automatic
        /// A plain array: everything in one answer.
        case plain
        /// An object holding the items, the next page's URL and the total under the given keys (key paths). An
        /// answer that is a plain array is read as the items (one page, or the next by a `Link` header).
        case envelope(items: String, next: String?, total: String?)
        /// An RFC 8288 `Link` header with `rel="next"`.
        case linkHeader
        /// A page-number query parameter; the next page is asked for until a page comes back short or empty, or
        /// the pages read reach the total. The page size is the server's own figure (``pageSizeKeyPath``,
        /// ``pageSizeHeader``), else the one the caller's query asks for, else `pageSize`; a short first page with a
        /// total saying more (a server capping the size) is asked for that many items per page from then on.
        case pageNumber(parameter: String, firstPage: Int, sizeParameter: String?, pageSize: Int?)
        /// An offset query parameter with a limit (the caller's own, else `limit`); the next page is asked for
        /// until one comes back short or empty, or, when the server declares a total, until the offset reaches it
        /// (so a server that serves fewer items than asked is still walked whole).
        case offset(parameter: String, limitParameter: String, limit: Int)
    }

    /// The kind of pagination.
    package var style: Style
    /// The response headers that may hold the total number of items, when the body does not say; the first one
    /// present wins (`["X-Total-Count", "Total"]` for ``rails``).
    public var totalHeaders: [String]
    /// The response header holding the page size the server used (api-pagination's `Per-Page`), if any: a
    /// ``pageNumber(_:firstPage:sizeParameter:pageSize:)`` walk without a `pageSize` of its own
    /// recognises the last page by it.
    public var pageSizeHeader: String?
    /// The key path of the total number of items in the body (`"metadata.total"` for Vapor), read before the
    /// headers, whatever the style.
    public var totalKeyPath: String?
    /// The key path of the page size the server used in the body (`"metadata.per"` for Vapor): a
    /// ``pageNumber(_:firstPage:sizeParameter:pageSize:)`` walk without a `pageSize` of its own
    /// recognises the last page by it (before ``pageSizeHeader``).
    public var pageSizeKeyPath: String?

    /// The first of ``totalHeaders``; setting it replaces them all (`nil` reads no header).
    package var totalHeader: String? {
        get { totalHeaders.first }
        set { totalHeaders = newValue.map { [$0] } ?? [] }
    }

    /// Creates a pagination from a style.
    /// - Parameters:
    ///   - style: The kind.
    ///   - totalHeader: The header holding the total (`X-Total-Count` by default).
    package init(_ style: Style, totalHeader: String? = "X-Total-Count") {
        self.init(style, totalHeaders: totalHeader.map { [$0] } ?? [])
    }

    /// Creates a pagination from a style, reading the total from the body at `totalKeyPath` or else from the
    /// first of `totalHeaders` that is present.
    /// - Parameters:
    ///   - style: The kind.
    ///   - totalHeaders: The headers that may hold the total, in order.
    ///   - pageSizeHeader: The header holding the server's page size, if any.
    ///   - totalKeyPath: The key path of the total in the body, if any.
    ///   - pageSizeKeyPath: The key path of the server's page size in the body, if any.
    package init(
        _ style: Style, totalHeaders: [String], pageSizeHeader: String? = nil, totalKeyPath: String? = nil,
        pageSizeKeyPath: String? = nil
    ) {
        self.style = style
        self.totalHeaders = totalHeaders
        self.pageSizeHeader = pageSizeHeader
        self.totalKeyPath = totalKeyPath
        self.pageSizeKeyPath = pageSizeKeyPath
    }

    /// Recognises envelopes (`results`, `data`, `items` with `next` and `count`/`total`), `Link` headers and
    /// `X-Total-Count` by itself.
    public static let automatic = Pagination(.automatic)

    /// A plain array: one page holds everything.
    public static let plain = Pagination(.plain)

    /// Rails: what ``automatic`` recognises (a `Link: <…>; rel="next"` header, or an envelope), with the total in
    /// `X-Total-Count` or in api-pagination's `Total` header, and the page size in its `Per-Page` header.
    /// api-pagination (with kaminari or pagy) answers a plain array with `Link` (`first`, `prev`, `next`, `last`)
    /// for `?page=&per_page=`.
    public static let rails = Pagination(
        .automatic, totalHeaders: ["X-Total-Count", "Total"], pageSizeHeader: "Per-Page")

    /// Vapor's Fluent `paginate(for:)`: `{"items": […], "metadata": {"page": 1, "per": 10, "total": 24}}` for
    /// `?page=&per=`, with no link to the next page: pages are asked for by number, and the walk stops at an empty
    /// or short page (by `metadata.per`) or when the pages read reach `metadata.total`.
    public static let vapor = Pagination(
        .pageNumber(parameter: "page", firstPage: 1, sizeParameter: "per", pageSize: nil), totalHeaders: [],
        totalKeyPath: "metadata.total", pageSizeKeyPath: "metadata.per")

    /// Laravel's length-aware paginator (`->paginate()` through an API Resource collection): `{"data": […],
    /// "links": {"first", "last", "prev", "next"}, "meta": {"current_page", "last_page", "per_page", "total", …}}`
    /// for `?page=&per_page=`. Pages are asked for by number on the caller's own query (Laravel's `links` drop the
    /// query string unless the app calls `withQueryString()`, so following them would lose filters), and the walk
    /// stops at an empty or short page (by `meta.per_page`) or when the pages read reach `meta.total`.
    public static let laravel = Pagination(
        .pageNumber(parameter: "page", firstPage: 1, sizeParameter: "per_page", pageSize: nil), totalHeaders: [],
        totalKeyPath: "meta.total", pageSizeKeyPath: "meta.per_page")

    /// JSON:API: the items under `data`, the next page at `links.next` (followed until it is `null` or absent), the
    /// total at `meta.pagination.count` (djangorestframework-jsonapi's `JsonApiPageNumberPagination`) or else at
    /// `meta.total`; the specification itself defines no total. Ask for a page size in the query
    /// (`["page[size]": "50"]` on djangorestframework-jsonapi).
    public static let jsonAPI = Pagination(
        .envelope(items: "data", next: "links.next", total: "meta.total"), totalHeaders: ["X-Total-Count"],
        totalKeyPath: "meta.pagination.count")

    /// Django REST framework's `{"count": …, "next": …, "previous": …, "results": […]}`.
    public static let djangoREST = Pagination.envelope(items: "results", next: "next", total: "count")

    /// An envelope object.
    /// - Parameters:
    ///   - items: The key path of the items (`"results"`, `"data.people"`).
    ///   - next: The key path of the next page's URL (absolute or relative); `nil` or `null` ends the walk.
    ///   - total: The key path of the total number of items, if any.
    /// - Returns: The pagination.
    public static func envelope(items: String, next: String? = "next", total: String? = nil) -> Pagination {
        Pagination(.envelope(items: items, next: next, total: total))
    }

    /// An RFC 8288 `Link` header (`<https://…?page=2>; rel="next"`), with the total in `totalHeader`.
    /// - Parameter totalHeader: The header holding the total (`X-Total-Count` by default).
    /// - Returns: The pagination.
    public static func linkHeader(totalHeader: String? = "X-Total-Count") -> Pagination {
        Pagination(.linkHeader, totalHeader: totalHeader)
    }

    /// Page numbers in a query parameter: `?page=1`, `?page=2`… until a page comes back empty or shorter than
    /// `pageSize`, or the total is reached.
    /// - Parameters:
    ///   - parameter: The page parameter's name.
    ///   - firstPage: The number of the first page.
    ///   - sizeParameter: The page-size parameter's name, sent with `pageSize` when both are given.
    ///   - pageSize: The page size to ask for (and to recognise the last page by).
    /// - Returns: The pagination.
    public static func pageNumber(
        _ parameter: String = "page", firstPage: Int = 1, sizeParameter: String? = nil, pageSize: Int? = nil
    ) -> Pagination {
        Pagination(
            .pageNumber(parameter: parameter, firstPage: firstPage, sizeParameter: sizeParameter, pageSize: pageSize))
    }

    /// An offset and a limit in query parameters: `?offset=0&limit=50`, then `offset=50`… until a page comes back
    /// shorter than `limit`, or the total is reached.
    /// - Parameters:
    ///   - parameter: The offset parameter's name.
    ///   - limitParameter: The limit parameter's name.
    ///   - limit: The page size to ask for.
    /// - Returns: The pagination.
    public static func offset(
        _ parameter: String = "offset", limitParameter: String = "limit", limit: Int
    ) -> Pagination {
        Pagination(.offset(parameter: parameter, limitParameter: limitParameter, limit: max(1, limit)))
    }
}
