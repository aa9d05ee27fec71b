import Foundation

/// The page numbers a list envelope states about itself, which is enough to ask for the next page without a
/// link: Vapor Fluent's `{"items", "metadata": {"page", "per", "total"}}` and Laravel's
/// `{"data", "links", "meta": {"current_page", "per_page", "last_page", "total"}}`.
struct NumberedEnvelope: Sendable, Hashable {
    /// Which framework's envelope.
    enum Kind: Sendable, Hashable {
        /// Fluent's `metadata`.
        case fluent
        /// Laravel's `meta` (a length-aware paginator has `last_page` and `total`; a simple one neither).
        case laravel
    }

    /// Which framework's envelope.
    var kind: Kind
    /// The number of this page.
    var current: Int
    /// The page size the server used, when positive.
    var size: Int?
    /// The number of the last page (Laravel's `last_page`).
    var last: Int?

    /// Reads the numbers of `json`, or `nil` when it is neither envelope.
    init?(_ json: JSON) {
        if let page = json.value(atPath: "metadata.page")?.int, let per = json.value(atPath: "metadata.per")?.int {
            self.init(kind: .fluent, current: page, size: per > 0 ? per : nil, last: nil)
        } else if let page = json.value(atPath: "meta.current_page")?.int {
            let per = json.value(atPath: "meta.per_page")?.int
            let last = json.value(atPath: "meta.last_page")?.int
            self.init(kind: .laravel, current: page, size: per.flatMap { $0 > 0 ? $0 : nil }, last: last)
        } else {
            return nil
        }
    }

    private init(kind: Kind, current: Int, size: Int?, last: Int?) {
        self.kind = kind
        self.current = current
        self.size = size
        self.last = last
    }

    /// The preset that walks this envelope.
    var preset: String { kind == .fluent ? "Pagination.vapor" : "Pagination.laravel" }

    /// What the envelope said, for ``PageSignals/found``.
    var phrase: String {
        switch kind {
        case .fluent:
            return "`metadata.page` \(current)"
        case .laravel:
            return "`meta.current_page` \(current)" + (last.map { " of `meta.last_page` \($0)" } ?? "")
        }
    }

    /// Whether this is the last page by the envelope's own numbers: the last page number reached, a page shorter
    /// than its size, or (Fluent) the pages so far covering the total.
    func isLast(count: Int, total: Int?) -> Bool {
        if count == 0 { return true }
        if let last, current >= last { return true }
        guard let size else { return false }
        if count < size { return true }
        if last == nil, let total, kind == .fluent {
            guard let seen = Pagination.product(current, size) else { return true }
            return seen >= total
        }
        return false
    }

    /// The next page: the same request with the page number after ``current`` (the parameter named as in
    /// `link`, else `page`), so the caller's filters and page size stay; the link itself when the request was a
    /// link. `nil` when `link` is `null` or the envelope's numbers say this is the last page.
    /// - Parameters:
    ///   - link: The envelope's `links.next`, if present.
    ///   - request: The request that fetched this page.
    ///   - count: How many items the page held.
    ///   - total: The total, if known.
    ///   - resolve: Makes a link from the server absolute.
    func next(
        link: JSON?, request: PageRequest, count: Int, total: Int?, resolve: (String) -> URL?
    ) -> PageRequest? {
        if let link, link.string?.isEmpty ?? true { return nil }
        guard !isLast(count: count, total: total), let following = Pagination.sum(current, 1) else { return nil }
        let target = link?.string.flatMap(resolve)
        let name: String? = target.map { Self.parameter(in: $0, holding: following) } ?? "page"
        if request.url == nil, let name {
            return PageRequest(query: Pagination.replacing(name, with: following, in: request.query))
        }
        return target.map(PageRequest.init(url:))
    }

    /// The last query parameter of `url` whose value is `page` (Laravel writes its page parameter last).
    private static func parameter(in url: URL, holding page: Int) -> String? {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return items.last { $0.value == String(page) }?.name
    }
}
