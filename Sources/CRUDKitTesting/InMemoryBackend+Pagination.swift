import CRUDKit
import Foundation

extension InMemoryBackend {
    /// How the backend splits a list into pages. Items are always in creation order.
    public enum Pagination: Sendable, Hashable {
        /// Every item, in a plain array (or `{collectionKey: [...]}`).
        case none
        /// Django REST framework's envelope `{"count", "next", "previous", "results"}`, with `page` and
        /// `page_size` query parameters (`page_size` capped at `maxPageSize`; `0` or junk falls back to
        /// `pageSize`; `page=last` is the last page). `next`/`previous` are absolute URLs built from the request
        /// URL (so from the `Host` header behind a ``LoopbackServer``) with the query sorted by name and no
        /// `page` on the link to page 1. A page past the end, `page=0` or `page=abc` answers 404
        /// `{"detail": "Invalid page."}`.
        case envelope(pageSize: Int = 10, maxPageSize: Int = 100)
        /// A plain array with an RFC 8288 `Link` header (`rel="first"`, `"prev"`, `"next"`, `"last"`, absolute
        /// URLs keeping the other query parameters) and `X-Total-Count`, with `page` and `per_page` query
        /// parameters, as GitHub does. A page past the end is an empty array.
        case linkHeader(pageSize: Int = 30, maxPageSize: Int = 100)
        /// Rails' api-pagination (with kaminari or pagy): a plain array for `page` and `per_page` query parameters
        /// (`per_page` capped at `maxPageSize`, by default ``InMemoryBackend/largestQueryNumber``: api-pagination
        /// sets no `max_per_page`, so `Per-Page` echoes the size asked; set it to model an app's cap), a `Link` header with absolute URLs keeping the other query
        /// parameters (`rel="first"` and `"prev"` after the first page, `"next"` and `"last"` before the last
        /// one; none for a single page) and the `Total` and `Per-Page` headers. A page past the end is an empty
        /// array.
        case apiPagination(pageSize: Int = 25, maxPageSize: Int = InMemoryBackend.largestQueryNumber)
        /// Vapor's Fluent `paginate(for:)`: `{"items": […], "metadata": {"page": 1, "per": 10, "total": 24}}` for
        /// `page` and `per` query parameters (`per` capped at `maxPer`; a page below 1 is page 1), with no link.
        /// A page past the end has no items.
        case vaporPage(per: Int = 10, maxPer: Int = 100)
        /// A plain array and no hints: `page` and `per_page` (or the names given) query parameters.
        case pageNumber(pageSize: Int = 25, pageParameter: String = "page", sizeParameter: String = "per_page")
        /// FastAPI as usually written (`offset: int = 0, limit: int = Query(100, le=100)`): a plain array for
        /// `offset` and `limit` query parameters (`limit` capped at `maxLimit`), a `Link` header with absolute
        /// URLs keeping the other query parameters (`rel="first"` and `"prev"` after the first page, `"next"` and
        /// `"last"` before the last one) and `x-total-count`. An offset past the end is an empty array.
        case offsetLinkHeader(limit: Int = 100, maxLimit: Int = 100)
        /// A plain array and no hints: `offset` and `limit` (or the names given) query parameters.
        case offset(limit: Int = 100, offsetParameter: String = "offset", limitParameter: String = "limit")
        /// Laravel's length-aware paginator through an API Resource collection: `{"data": […], "links": {"first",
        /// "last", "prev", "next"}, "meta": {"current_page", "from", "last_page", "links", "path", "per_page", "to",
        /// "total"}}` for `page` and `per_page` query parameters (`per_page` capped at `maxPerPage`; a page below 1
        /// is page 1). The links carry only `page`, as Laravel writes them without `withQueryString()`. A page past
        /// the end has no items.
        case laravel(perPage: Int = 15, maxPerPage: Int = 100)

        /// The query parameters this style reads (never used as filters).
        var parameters: Set<String> {
            switch self {
            case .none: []
            case .envelope: ["page", "page_size"]
            case .linkHeader, .apiPagination, .laravel: ["page", "per_page"]
            case .pageNumber(_, let page, let size): [page, size]
            case .offset(_, let offset, let limit): [offset, limit]
            case .offsetLinkHeader: ["offset", "limit"]
            case .vaporPage: ["page", "per"]
            }
        }
    }

    /// The largest page number, page size, offset or limit the backend accepts from a query (`Int32.max`, the
    /// SQL `integer` bound the frameworks' databases check). A whole number above it (or below its negative)
    /// answers 400 (FastAPI: 422) in the collection's error shape instead of overflowing; Django REST framework's
    /// envelope answers 404 `{"detail": "Invalid page."}` for such a page and caps such a page size, as DRF does.
    public static let largestQueryNumber = Int(Int32.max)

    /// A number from the query: `nil` when absent or not a whole number (the style's default applies);
    /// `.failure` when it is a whole number outside `-largestQueryNumber...largestQueryNumber`.
    static func queryNumber(_ target: RequestTarget, _ name: String) -> Result<Int?, QueryNumberError> {
        guard let text = target.queryValue(name) else { return .success(nil) }
        let digits = text.hasPrefix("-") ? text.dropFirst() : text[...]
        let whole = !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
        guard whole else { return .success(nil) }
        guard let value = Int(text), abs(value) <= largestQueryNumber else {
            return .failure(QueryNumberError(name: name, text: text))
        }
        return .success(value)
    }

    /// A query number out of range.
    struct QueryNumberError: Error {
        let name: String
        let text: String
    }

    /// The answer to a query number out of range, in `shape` (as the framework with that shape answers).
    static func badQueryNumber(_ error: QueryNumberError, shape: ErrorShape) -> HTTPResponse {
        let message = "\(error.name) must be a whole number from 0 to \(largestQueryNumber)"
        switch shape {
        case .drf:
            return detailResponse(400, message)
        case .rails, .railsScaffold:
            return jsonResponse(400, ["status": 400, "error": "Bad Request", "message": .string(message)])
        case .fastAPI:
            let detail: JSON = [
                "type": "less_than_equal", "loc": ["query", .string(error.name)],
                "msg": .string("Input should be less than or equal to \(largestQueryNumber)"),
                "input": .string(error.text),
            ]
            return jsonResponse(422, ["detail": [detail]])
        case .jsonAPI:
            let item: JSON = [
                "status": "400", "source": ["parameter": .string(error.name)], "title": "Invalid Query Parameter",
                "detail": .string(message),
            ]
            return jsonResponse(400, ["errors": [item]], contentType: "application/vnd.api+json")
        case .vapor:
            return jsonResponse(400, ["error": true, "reason": .string(message)])
        case .laravel:
            return jsonResponse(422, laravelValidation([(error.name, ["The \(error.name) must be an integer."])]))
        case .problemDetails:
            let body: JSON = [
                "type": "about:blank", "title": "Bad Request", "status": 400, "detail": .string(message),
            ]
            return jsonResponse(400, body, contentType: "application/problem+json")
        }
    }

    /// `a * b` for non-negative numbers, `Int.max` when it overflows.
    static func saturatedProduct(_ a: Int, _ b: Int) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? .max : product
    }

    /// A collection's objects as a page answer reads them: a view of the matching rows that makes a `JSON` value
    /// only of the rows a page shows, so answering one page costs the page, not the table.
    typealias PageItems = LazyMapCollection<[Row], JSON>

    /// The items from `start` (0-based) to `start + count`, clamped to `items` (overflow-safe).
    static func slice(_ items: PageItems, from start: Int, count: Int) -> PageItems.SubSequence {
        let lower = min(max(start, 0), items.count)
        return items[lower..<(lower + min(max(count, 0), items.count - lower))]
    }

    /// One page of `items` as the response body and headers `pagination` prescribes; a page number, size,
    /// offset or limit out of range answers in `errors`' shape (see ``largestQueryNumber``).
    static func page(
        _ items: PageItems, pagination: Pagination, errors: ErrorShape, target: RequestTarget, url: URL,
        collectionKey: String?
    ) -> HTTPResponse {
        do {
            return try checkedPage(
                items, pagination: pagination, target: target, url: url, collectionKey: collectionKey)
        } catch {
            return badQueryNumber(error, shape: errors)
        }
    }

    private static func checkedPage(
        _ items: PageItems, pagination: Pagination, target: RequestTarget, url: URL, collectionKey: String?
    ) throws(QueryNumberError) -> HTTPResponse {
        let plain = { (slice: PageItems.SubSequence) -> JSON in
            let array = JSON.array(Array(slice))
            return collectionKey.map { JSON.object(JSON.Object([($0, array)])) } ?? array
        }
        let number = { (name: String) throws(QueryNumberError) -> Int? in try queryNumber(target, name).get() }
        let pageCount = { (size: Int) in items.isEmpty ? 1 : (items.count - 1) / size + 1 }
        switch pagination {
        case .none:
            return jsonResponse(200, plain(items[...]))
        case .envelope(let defaultSize, let maxSize):
            // DRF caps any page size at max_page_size and answers 404 for any page it cannot serve.
            let asked: Int
            switch queryNumber(target, "page_size") {
            case .success(let value): asked = value ?? 0
            case .failure: asked = target.queryValue("page_size")?.hasPrefix("-") == true ? 0 : .max
            }
            let size = asked > 0 ? min(asked, max(maxSize, 1)) : max(defaultSize, 1)
            let pages = pageCount(size)
            let requested = target.queryValue("page") ?? "1"
            guard let page = requested == "last" ? pages : Int(requested), (1...pages).contains(page) else {
                return detailResponse(404, "Invalid page.")
            }
            let pageLink = { (page: Int) -> JSON in
                .string(link(url, target, replacing: "page", with: page == 1 ? nil : page, sorted: true))
            }
            let slice = slice(items, from: saturatedProduct(page - 1, size), count: size)
            let body: JSON = [
                "count": JSON(items.count), "next": page < pages ? pageLink(page + 1) : .null,
                "previous": page > 1 ? pageLink(page - 1) : .null, "results": .array(Array(slice)),
            ]
            return jsonResponse(200, body)
        case .linkHeader(let defaultSize, let maxSize):
            let asked = try number("per_page") ?? 0
            let size = asked > 0 ? min(asked, max(maxSize, 1)) : max(defaultSize, 1)
            let pages = pageCount(size)
            let page = max(try number("page") ?? 1, 1)
            var links: [(String, Int)] = [("first", 1)]
            if page > 1 { links.append(("prev", min(page - 1, pages))) }
            if page < pages { links.append(("next", page + 1)) }
            links.append(("last", pages))
            let header = links.map { rel, destination in
                "<\(link(url, target, replacing: "page", with: destination, sorted: false))>; rel=\"\(rel)\""
            }
            let slice = slice(items, from: saturatedProduct(page - 1, size), count: size)
            let headers: HTTPHeaders = ["Link": header.joined(separator: ", "), "X-Total-Count": "\(items.count)"]
            return jsonResponse(200, plain(slice), headers: headers)
        case .apiPagination(let defaultSize, let maxSize):
            let asked = try number("per_page") ?? 0
            let size = asked > 0 ? min(asked, max(maxSize, 1)) : max(defaultSize, 1)
            let pages = pageCount(size)
            let page = max(try number("page") ?? 1, 1)
            var links: [(String, Int)] = []
            if page > 1 { links += [("first", 1), ("prev", page - 1)] }
            if page < pages { links += [("next", page + 1), ("last", pages)] }
            var headers: HTTPHeaders = ["Total": "\(items.count)", "Per-Page": "\(size)"]
            if !links.isEmpty {
                headers["Link"] = links.map { rel, destination in
                    "<\(link(url, target, replacing: "page", with: destination, sorted: false))>; rel=\"\(rel)\""
                }.joined(separator: ", ")
            }
            let slice = slice(items, from: saturatedProduct(page - 1, size), count: size)
            return jsonResponse(200, plain(slice), headers: headers)
        case .vaporPage(let defaultPer, let maxPer):
            let asked = try number("per") ?? 0
            let per = asked > 0 ? min(asked, max(maxPer, 1)) : max(defaultPer, 1)
            let page = max(try number("page") ?? 1, 1)
            let slice = slice(items, from: saturatedProduct(page - 1, per), count: per)
            let metadata: JSON = ["page": JSON(page), "per": JSON(per), "total": JSON(items.count)]
            return jsonResponse(200, ["items": .array(Array(slice)), "metadata": metadata])
        case .pageNumber(let defaultSize, let pageName, let sizeName):
            let asked = try number(sizeName) ?? 0
            let size = asked > 0 ? asked : max(defaultSize, 1)
            let page = max(try number(pageName) ?? 1, 1)
            return jsonResponse(200, plain(slice(items, from: saturatedProduct(page - 1, size), count: size)))
        case .offsetLinkHeader(let defaultLimit, let maxLimit):
            let offset = max(try number("offset") ?? 0, 0)
            let asked = try number("limit") ?? 0
            let limit = asked > 0 ? min(asked, max(maxLimit, 1)) : max(defaultLimit, 1)
            let lastOffset = items.isEmpty ? 0 : (items.count - 1) / limit * limit
            var links: [(String, Int)] = []
            if offset > 0 { links += [("first", 0), ("prev", max(0, min(offset, items.count) - limit))] }
            if offset < lastOffset { links += [("next", offset + limit), ("last", lastOffset)] }
            var headers: HTTPHeaders = ["x-total-count": "\(items.count)"]
            if !links.isEmpty {
                headers["Link"] = links.map { rel, destination in
                    "<\(link(url, target, replacing: "offset", with: destination, sorted: false))>; rel=\"\(rel)\""
                }.joined(separator: ", ")
            }
            return jsonResponse(200, plain(slice(items, from: offset, count: limit)), headers: headers)
        case .laravel(let perPage, let maxPerPage):
            return try laravelPage(items, perPage: perPage, maxPerPage: maxPerPage, target: target, url: url)
        case .offset(let defaultLimit, let offsetName, let limitName):
            let offset = max(try number(offsetName) ?? 0, 0)
            let asked = try number(limitName) ?? 0
            let limit = asked > 0 ? asked : max(defaultLimit, 1)
            return jsonResponse(200, plain(slice(items, from: offset, count: limit)))
        }
    }

    /// `url` with the query parameter `name` set to `value` (removed when `nil`), other parameters kept; sorted by
    /// name when `sorted` (as Django REST framework writes its links).
    static func link(
        _ url: URL, _ target: RequestTarget, replacing name: String, with value: Int?, sorted: Bool
    )
        -> String
    {
        var items = target.query.filter { $0.name != name }
        if let value {
            if sorted {
                items.append((name, String(value)))
            } else if let index = target.query.firstIndex(where: { $0.name == name }) {
                items.insert((name, String(value)), at: min(index, items.count))
            } else {
                items.append((name, String(value)))
            }
        }
        if sorted {
            items = items.enumerated().sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }.map(
                \.element)
        }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.percentEncodedQuery = nil
        components?.fragment = nil
        let base = components?.string ?? url.absoluteString
        guard !items.isEmpty else { return base }
        let query = items.map { FormParameters.percentEncode($0.name) + "=" + FormParameters.percentEncode($0.value) }
        return base + "?" + query.joined(separator: "&")
    }
}
