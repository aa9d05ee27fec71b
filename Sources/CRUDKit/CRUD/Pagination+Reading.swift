import Foundation

// How a `Pagination` reads one page's answer: where the items are, the total, and the next page.

extension Pagination {
    /// The keys an ``automatic`` pagination looks for the items under, in order.
    static let itemKeys = ["results", "data", "items"]
    /// The keys an ``automatic`` pagination looks for the total under, in order.
    static let totalKeys = ["count", "total"]
    /// Where well-known envelopes state the total below the top level: Fluent's `metadata.total`, Laravel's and
    /// JSON:API's `meta.total`, djangorestframework-jsonapi's `meta.pagination.count`.
    static let nestedTotalPaths = ["metadata.total", "meta.total", "meta.pagination.count"]
    /// Where well-known envelopes state their page size: Fluent's `metadata.per`, Laravel's `meta.per_page`.
    static let pageSizePaths = ["metadata.per", "meta.per_page"]

    /// The first page's request for `query`: the limit (and offset 0) or the page size added when configured and
    /// not already given.
    func firstRequest(_ query: FormParameters) -> PageRequest {
        var query = query
        switch style {
        case .offset(let parameter, let limitParameter, let limit):
            if query[limitParameter] == nil { query.append(limitParameter, .string(String(limit))) }
            if query[parameter] == nil { query.append(parameter, "0") }
        case .pageNumber(_, _, let sizeParameter?, let pageSize?):
            if query[sizeParameter] == nil { query.append(sizeParameter, .string(String(pageSize))) }
        default:
            break
        }
        return PageRequest(query: query)
    }

    /// Where the items sit in `json`: the document itself when it is a plain array (whatever the settings: a
    /// nested list may be plain where the API's lists are enveloped), the model's collection key, the envelope's
    /// key, or an automatic guess.
    func itemsPath(in json: JSON, collectionKey: String?) -> String {
        if json.array != nil { return "" }
        if let collectionKey { return collectionKey }
        switch style {
        case .plain: return ""
        case .envelope(let items, _, _): return items
        default:
            guard case .object(let object) = json else { return "" }
            return Self.itemKeys.first { object[$0]?.array != nil } ?? ""
        }
    }

    /// The total number of items, from the envelope or the total header; a negative one is no total.
    func total(in json: JSON, response: HTTPResponse) -> Int? {
        totalSource(in: json, response: response)?.value
    }

    /// The total and where it was found: a key path of the body, or a header.
    func totalSource(in json: JSON, response: HTTPResponse) -> (value: Int, place: SignalPlace)? {
        var paths = totalKeyPath.map { [$0] } ?? []
        switch style {
        case .envelope(_, _, let key?): paths.append(key)
        case .plain, .envelope: break
        default: if json.object != nil { paths += Self.totalKeys + Self.nestedTotalPaths }
        }
        for path in paths {
            if let total = json.value(atPath: path)?.int { return total < 0 ? nil : (total, .body(path)) }
        }
        for name in totalHeaders {
            guard let value = response.headers[name] else { continue }
            guard let total = Int(value.trimmingCharacters(in: .whitespaces)), total >= 0 else { return nil }
            return (total, .header(name))
        }
        return nil
    }

    /// The page size the server says it used, and where: ``pageSizeKeyPath``, Fluent's `metadata.per`, Laravel's
    /// `meta.per_page`, else ``pageSizeHeader``; only a positive one.
    func servedPageSize(in json: JSON, response: HTTPResponse) -> (value: Int, place: SignalPlace)? {
        var paths = pageSizeKeyPath.map { [$0] } ?? []
        if json.object != nil { paths += Self.pageSizePaths }
        for path in paths {
            if let size = json.value(atPath: path)?.int, size > 0 { return (size, .body(path)) }
        }
        if let name = pageSizeHeader, let size = Self.headerNumber([name], in: response), size > 0 {
            return (size, .header(name))
        }
        return nil
    }

    /// Where a figure about the pages was found.
    enum SignalPlace {
        /// A key path of the body.
        case body(String)
        /// A response header.
        case header(String)

        /// `` `metadata.total` 24 in the body`` or `` `X-Total-Count` header 24``.
        func phrase(_ value: Int) -> String {
            switch self {
            case .body(let path): "`\(path)` \(value) in the body"
            case .header(let name): "`\(name)` header \(value)"
            }
        }
    }

    /// The first of `names` that `response` has, as a whole number.
    static func headerNumber(_ names: [String], in response: HTTPResponse) -> Int? {
        for name in names {
            if let value = response.headers[name] { return Int(value.trimmingCharacters(in: .whitespaces)) }
        }
        return nil
    }

    /// The next page's request, or `nil` after the last page.
    /// - Parameters:
    ///   - json: The page's document.
    ///   - response: The page's response.
    ///   - request: The request that fetched it.
    ///   - count: How many items it held.
    ///   - total: The total, if known.
    ///   - resolve: Makes a link from the server absolute.
    func next(
        in json: JSON,
        response: HTTPResponse,
        request: PageRequest,
        count: Int,
        total: Int?,
        resolve: (String) -> URL?
    ) -> PageRequest? {
        switch style {
        case .plain:
            return nil
        case .envelope(_, let key, _):
            if json.array != nil { return linkNext(response, resolve: resolve) }
            guard let key, let link = Self.link(json.value(atPath: key)), !link.isEmpty else { return nil }
            return resolve(link).map(PageRequest.init(url:))
        case .linkHeader:
            return linkNext(response, resolve: resolve)
        case .automatic:
            return automaticNext(
                in: json, response: response, request: request, count: count, total: total,
                resolve: resolve)
        case .pageNumber(let parameter, let firstPage, let sizeParameter, let configuredSize):
            guard request.url == nil, count > 0 else { return nil }
            let asked = sizeParameter.flatMap { Self.integer(request.query[$0]) }.flatMap { $0 > 0 ? $0 : nil }
            // The server's own figure first, then the caller's query, then the configured size.
            let pageSize = servedPageSize(in: json, response: response)?.value ?? asked ?? configuredSize
            let current = Self.integer(request.query[parameter]) ?? firstPage
            // A page number at the edge of `Int` (the caller's own query) ends the walk rather than overflowing.
            guard let following = Self.sum(current, 1) else { return nil }
            var query = request.query
            if let pageSize, count < pageSize {
                // A short page is the last one; only a short first page with a total saying more is a server
                // that serves fewer items than asked (a cap on the page size), asked for that many from now on.
                guard current == firstPage, let total, count < total, let sizeParameter else { return nil }
                query = Self.replacing(sizeParameter, with: count, in: query)
            } else if let total {
                // Items up to this page; a count that does not fit in an `Int` is past any total.
                let pages = Self.difference(current, firstPage).flatMap { Self.sum($0, 1) }
                guard let seen = pages.flatMap({ Self.product($0, pageSize ?? count) }), seen < total else {
                    return nil
                }
            }
            return PageRequest(query: Self.replacing(parameter, with: following, in: query))
        case .offset(let parameter, let limitParameter, let limit):
            guard request.url == nil, count > 0 else { return nil }
            let asked = Self.integer(request.query[limitParameter]) ?? limit
            let current = Self.integer(request.query[parameter]) ?? 0
            guard let following = Self.sum(current, count) else { return nil }
            if let total {
                // The next offset follows what was served, so a server that caps the limit is walked whole.
                if following >= total { return nil }
            } else if count < asked {
                return nil
            }
            return PageRequest(query: Self.replacing(parameter, with: following, in: request.query))
        }
    }

    /// ``Style/automatic``'s next page: a top-level `next`, then an envelope that numbers its pages (Fluent,
    /// Laravel), then `links.next` (JSON:API), then the `Link` header.
    private func automaticNext(
        in json: JSON, response: HTTPResponse, request: PageRequest, count: Int, total: Int?,
        resolve: (String) -> URL?
    ) -> PageRequest? {
        guard case .object(let object) = json else { return linkNext(response, resolve: resolve) }
        if let value = object["next"] {
            guard let link = value.string, !link.isEmpty else { return nil }
            return resolve(link).map(PageRequest.init(url:))
        }
        let linked = json.value(atPath: "links.next")
        if let numbered = NumberedEnvelope(json) {
            return numbered.next(
                link: linked, request: request, count: count, total: total, resolve: resolve)
        }
        if let linked {
            guard let link = Self.link(linked), !link.isEmpty else { return nil }
            return resolve(link).map(PageRequest.init(url:))
        }
        return linkNext(response, resolve: resolve)
    }

    /// A link in a body: a string, or a JSON:API 1.1 link object's `href` (`{"href": "…", "meta": …}`).
    static func link(_ value: JSON?) -> String? {
        value?.string ?? value?.object?["href"]?.string
    }

    func linkNext(_ response: HTTPResponse, resolve: (String) -> URL?) -> PageRequest? {
        guard let link = LinkHeader.target(of: "next", in: response.headers.values(for: "Link")) else { return nil }
        return resolve(link).map(PageRequest.init(url:))
    }

    /// The sum of `terms`, or `nil` when it does not fit in an `Int`.
    static func sum(_ terms: Int...) -> Int? {
        var total = 0
        for term in terms {
            let (result, overflow) = total.addingReportingOverflow(term)
            if overflow { return nil }
            total = result
        }
        return total
    }

    /// `lhs − rhs`, or `nil` when it does not fit in an `Int`.
    static func difference(_ lhs: Int, _ rhs: Int) -> Int? {
        let (result, overflow) = lhs.subtractingReportingOverflow(rhs)
        return overflow ? nil : result
    }

    /// `lhs × rhs`, or `nil` when it does not fit in an `Int`.
    static func product(_ lhs: Int, _ rhs: Int) -> Int? {
        let (result, overflow) = lhs.multipliedReportingOverflow(by: rhs)
        return overflow ? nil : result
    }

    static func integer(_ value: FormValue?) -> Int? {
        guard case .string(let text)? = value else { return nil }
        return Int(text)
    }

    static func replacing(_ name: String, with value: Int, in query: FormParameters) -> FormParameters {
        var query = query
        query.fields.removeAll { $0.name == name }
        query.append(name, .string(String(value)))
        return query
    }
}
