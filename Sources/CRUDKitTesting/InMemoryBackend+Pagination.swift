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
        /// A plain array and no hints: `page` and `per_page` (or the names given) query parameters.
        case pageNumber(pageSize: Int = 25, pageParameter: String = "page", sizeParameter: String = "per_page")
        /// A plain array and no hints: `offset` and `limit` (or the names given) query parameters.
        case offset(limit: Int = 100, offsetParameter: String = "offset", limitParameter: String = "limit")

        /// The query parameters this style reads (never used as filters).
        var parameters: Set<String> {
            switch self {
            case .none: []
            case .envelope: ["page", "page_size"]
            case .linkHeader: ["page", "per_page"]
            case .pageNumber(_, let page, let size): [page, size]
            case .offset(_, let offset, let limit): [offset, limit]
            }
        }
    }

    /// One page of `items` as the response body and headers `pagination` prescribes.
    static func page(
        _ items: [JSON], pagination: Pagination, target: RequestTarget, url: URL, collectionKey: String?
    ) -> HTTPResponse {
        let plain = { (slice: ArraySlice<JSON>) -> JSON in
            let array = JSON.array(Array(slice))
            return collectionKey.map { JSON.object(JSON.Object([($0, array)])) } ?? array
        }
        let number = { (name: String) in target.queryValue(name).flatMap { Int($0) } }
        switch pagination {
        case .none:
            return jsonResponse(200, plain(items[...]))
        case .envelope(let defaultSize, let maxSize):
            let asked = number("page_size") ?? 0
            let size = asked > 0 ? min(asked, maxSize) : max(defaultSize, 1)
            let pages = max(1, (items.count + size - 1) / size)
            let requested = target.queryValue("page") ?? "1"
            guard let page = requested == "last" ? pages : Int(requested), (1...pages).contains(page) else {
                return detailResponse(404, "Invalid page.")
            }
            let pageLink = { (page: Int) -> JSON in
                .string(link(url, target, replacing: "page", with: page == 1 ? nil : page, sorted: true))
            }
            let slice = items[min((page - 1) * size, items.count)..<min(page * size, items.count)]
            let body: JSON = [
                "count": JSON(items.count), "next": page < pages ? pageLink(page + 1) : .null,
                "previous": page > 1 ? pageLink(page - 1) : .null, "results": .array(Array(slice)),
            ]
            return jsonResponse(200, body)
        case .linkHeader(let defaultSize, let maxSize):
            let asked = number("per_page") ?? 0
            let size = asked > 0 ? min(asked, maxSize) : max(defaultSize, 1)
            let pages = max(1, (items.count + size - 1) / size)
            let page = max(number("page") ?? 1, 1)
            var links: [(String, Int)] = [("first", 1)]
            if page > 1 { links.append(("prev", min(page - 1, pages))) }
            if page < pages { links.append(("next", page + 1)) }
            links.append(("last", pages))
            let header = links.map { rel, destination in
                "<\(link(url, target, replacing: "page", with: destination, sorted: false))>; rel=\"\(rel)\""
            }
            let slice = items[min((page - 1) * size, items.count)..<min(page * size, items.count)]
            let headers: HTTPHeaders = ["Link": header.joined(separator: ", "), "X-Total-Count": "\(items.count)"]
            return jsonResponse(200, plain(slice), headers: headers)
        case .pageNumber(let defaultSize, let pageName, let sizeName):
            let asked = number(sizeName) ?? 0
            let size = asked > 0 ? asked : max(defaultSize, 1)
            let page = max(number(pageName) ?? 1, 1)
            let start = min((page - 1).multipliedReportingOverflow(by: size).partialValue, items.count)
            return jsonResponse(200, plain(items[max(start, 0)..<min(max(start, 0) + size, items.count)]))
        case .offset(let defaultLimit, let offsetName, let limitName):
            let offset = min(max(number(offsetName) ?? 0, 0), items.count)
            let asked = number(limitName) ?? 0
            let limit = asked > 0 ? asked : max(defaultLimit, 1)
            return jsonResponse(200, plain(items[offset..<min(offset + min(limit, items.count), items.count)]))
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
