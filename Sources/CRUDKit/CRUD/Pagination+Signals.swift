import Foundation

// What one answer of a list says about its pages, for the end-of-walk check of `PageSequence`: the total, the page
// size, whether the server said this is the last page, and which pagination would walk the server.

extension Pagination {
    /// What the answer to `request` said about its pages.
    /// - Parameters:
    ///   - json: The page's document.
    ///   - response: The page's response.
    ///   - request: The request that fetched it.
    ///   - count: How many items it held.
    func signals(in json: JSON, response: HTTPResponse, request: PageRequest, count: Int) -> PageSignals {
        var found: [String] = []
        let total = totalSource(in: json, response: response)
        if let total { found.append(total.place.phrase(total.value)) }
        let served = servedPageSize(in: json, response: response)
        let asked = askedPageSize(request)
        if let served {
            found.append(served.place.phrase(served.value) + " as the page size")
        } else if let asked {
            found.append("page size \(asked) asked for")
        }
        let numbered = NumberedEnvelope(json)
        if let numbered { found.append(numbered.phrase) }
        let last = lastPage(in: json, response: response, numbered: numbered, count: count, total: total?.value)
        found.append(last.phrase)
        return PageSignals(
            count: count, total: total?.value, pageSize: served?.value ?? asked, saysLast: last.says, found: found,
            suggestion: suggestion(in: json, response: response, numbered: numbered))
    }

    /// The page size a ``Style/pageNumber(parameter:firstPage:sizeParameter:pageSize:)`` or
    /// ``Style/offset(parameter:limitParameter:limit:)`` request asked for (its query, else the configured one).
    private func askedPageSize(_ request: PageRequest) -> Int? {
        let size: Int?
        switch style {
        case .pageNumber(_, _, let sizeParameter, let pageSize):
            size = sizeParameter.flatMap { Self.integer(request.query[$0]) } ?? pageSize
        case .offset(_, let limitParameter, let limit):
            size = Self.integer(request.query[limitParameter]) ?? limit
        default:
            size = nil
        }
        return size.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Whether the server said this page is the last (a `next` of `null`, a `Link` header without
    /// `rel="next"`, the last page number reached), with a phrase saying what it had.
    private func lastPage(
        in json: JSON, response: HTTPResponse, numbered: NumberedEnvelope?, count: Int, total: Int?
    ) -> (says: Bool, phrase: String) {
        let links = response.headers.values(for: "Link").flatMap(LinkHeader.links(in:))
        let linkPhrase = links.isEmpty ? "no `Link` header" : "a `Link` header without rel=\"next\""
        switch style {
        case .plain:
            return (true, "one page by the pagination")
        case .pageNumber, .offset:
            return (true, "no further page by the pagination's count")
        case .linkHeader:
            return (!links.isEmpty, linkPhrase)
        case .envelope(_, let key, _):
            if json.array != nil { return (!links.isEmpty, linkPhrase) }
            guard let key else { return (false, "no next-page key in the pagination") }
            return json.value(atPath: key) == nil ? (false, "no `\(key)`") : (true, "`\(key)` null")
        case .automatic:
            if json.value(forKey: "next") != nil { return (true, "`next` null") }
            if json.value(atPath: "links.next") != nil { return (true, "`links.next` null") }
            if let numbered, numbered.isLast(count: count, total: total) { return (true, "the last page number") }
            if !links.isEmpty { return (true, linkPhrase) }
            return (false, json.array != nil ? linkPhrase : "no `next`, `links.next` or page numbers, \(linkPhrase)")
        }
    }

    /// The pagination that would walk the server that sent `json`.
    private func suggestion(in json: JSON, response: HTTPResponse, numbered: NumberedEnvelope?) -> String {
        let reading = "if the total counts something else, read none (`Pagination(style, totalHeaders: [])`)"
        if let numbered {
            if case .automatic = style {
                return "the pages and the declared total disagree (items created or deleted during the walk, or a "
                    + "server that serves fewer items than it says); walk again, or \(reading)"
            }
            return "use \(numbered.preset) (or Pagination.automatic), which asks for each page by number"
        }
        if LinkHeader.target(of: "next", in: response.headers.values(for: "Link")) != nil {
            return "use Pagination.linkHeader() (or .automatic), which follows the `Link` header's rel=\"next\""
        }
        if json.value(forKey: "next")?.string != nil {
            return "use Pagination.envelope(items:next:total:) with next: \"next\" (or .automatic)"
        }
        if json.value(atPath: "links.next")?.string != nil {
            return "use Pagination.envelope(items:next:total:) with next: \"links.next\" (or .automatic)"
        }
        return "name how this server pages: .pageNumber(_:firstPage:sizeParameter:pageSize:) or .offset(limit:) "
            + "asks for the next page itself, .envelope(items:next:total:) follows a next link in the body; "
            + reading
    }
}
