import Foundation

/// One page of a list: its items, the total when the server says, and how to fetch the next page.
///
/// ```swift
/// var page = try await Person.page(["page_size": "50"])
/// while true {
///     show(page.items, of: page.total)
///     guard let next = try await page.nextPage() else { break }
///     page = next
/// }
/// ```
public struct Page<Model: CRUDResource>: Sendable {
    /// The items of this page, in the server's order.
    public let items: [Model]
    /// The total number of items in the whole list, when the server says (an envelope's `count`, `X-Total-Count`).
    public let total: Int?
    /// The request for the next page; `nil` on the last page.
    public let next: PageRequest?
    /// The scope the page was read from (and the next one is read from).
    package let scope: ResourceScope<Model>
    /// What the answer said about its pages, for the end-of-walk check of ``PageSequence``.
    let signals: PageSignals

    /// Creates a page.
    /// - Parameters:
    ///   - items: The items.
    ///   - total: The total, if known.
    ///   - next: The next page's request, if any.
    ///   - scope: Where the next page is read from.
    package init(items: [Model], total: Int?, next: PageRequest?, scope: ResourceScope<Model>) {
        self.items = items
        self.total = total
        self.next = next
        self.scope = scope
        self.signals = .neutral(count: items.count, total: total)
    }

    /// Creates a page read from an answer, with what the answer said about its pages.
    init(items: [Model], next: PageRequest?, scope: ResourceScope<Model>, signals: PageSignals) {
        self.items = items
        self.total = signals.total
        self.next = next
        self.scope = scope
        self.signals = signals
    }
}

extension Page where Model: Enumeratable {
    // twin: future, via: scope
    /// Fetches the next page, or answers `nil` on the last page (without a request).
    /// - Returns: The next page, or `nil`.
    /// - Throws: ``CRUDError``.
    @_disfavoredOverload
    public func nextPage() async throws -> Page<Model>? {
        guard let next else { return nil }
        return try await scope.fetchPage(next)
    }
}
