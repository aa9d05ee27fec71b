import Foundation

/// Every item of a paginated list, fetched page by page as the consumer gets there: the answer of
/// ``Enumeratable/all(_:)``.
///
/// Nothing is requested until iteration starts; the next page is requested only when the items of the previous
/// one have been consumed. When the iterating task is cancelled, iteration ends with ``CRUDError/cancelled`` at
/// the next call to `next()`: no more items are handed out, not even those of a page already fetched. A `next` link pointing at a page already fetched ends the walk, so a server that
/// links a page to itself cannot loop forever; a `next` link to another origin than the API's base URL fails with
/// ``CRUDError/invalidRequest(reason:)`` (the API's headers, credentials included, would go there).
///
/// A walk never ends short in silence: when it would end with fewer items than the total the server declared (a
/// body member or a header such as `X-Total-Count`), or on a full page with no way to ask for the next one, it
/// hands out the items it received and then fails with ``CRUDError/incompleteList(_:)``, naming what it saw and the
/// pagination that would fit. A last page that is exactly full with `"next": null`, more items than the total
/// (items created during the walk) and a short page from a server that says nothing else are the end.
///
/// Two more rules end a walk a server would otherwise keep going forever:
/// - **Repeated page:** a page whose items all have ids, every one of them already seen earlier in this walk
///   (a `next` link spelled differently for the same page, `?x=1`, `?x=2`…, or a server that ignores the page
///   number), ends the walk; its items are not yielded again. A page with an item without id, or with one new id,
///   counts as new.
/// - **Page cap:** at most 1,000 pages (unless set
///   with ``PageSequence/limited(toPages:)``) are fetched; a walk that would fetch one more fails with
///   ``CRUDError/invalidRequest(reason:)`` naming the cap and how to raise it.
///
/// ```swift
/// for try await person in Person.all(["age__gte": "30"]) {
///     if person.lastName == "Lovelace" { break }   // later pages are never requested
/// }
/// let everyone = try await Person.all().collect()
/// ```
public struct PageSequence<Model: Enumeratable>: AsyncSequence, Sendable {
    /// Each item.
    public typealias Element = Model

    /// Where the pages are read from.
    package let scope: ResourceScope<Model>
    /// The first page's request.
    package let first: PageRequest
    /// The most pages a walk fetches; one more fails with ``CRUDError/invalidRequest(reason:)``.
    package private(set) var maxPages: Int = PageSequence.defaultMaxPages

    /// The page cap of a walk unless set with ``limited(toPages:)``: 1,000 pages.
    package static var defaultMaxPages: Int { 1_000 }

    /// The same walk with another page cap.
    ///
    /// ```swift
    /// let everything = try await Log.all().limited(toPages: 50_000).collect()
    /// ```
    /// - Parameter pages: The most pages to fetch (at least 1).
    /// - Returns: The sequence with that cap.
    public func limited(toPages pages: Int) -> PageSequence {
        var copy = self
        copy.maxPages = Swift.max(pages, 1)
        return copy
    }

    /// Creates the sequence.
    /// - Parameters:
    ///   - scope: Where the pages are read from.
    ///   - first: The first page's request.
    package init(scope: ResourceScope<Model>, first: PageRequest) {
        self.scope = scope
        self.first = first
    }

    /// Walks the pages.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let scope: ResourceScope<Model>
        private var pending: PageRequest?
        private var buffer: [Model] = []
        private var position = 0
        private var fetched: Set<PageRequest> = []
        private var seen: Set<Model.ID> = []
        private let maxPages: Int
        /// How many items the walk handed out.
        private var received = 0
        /// Why the walk that ended is not the whole list, thrown once its last items are handed out.
        private var shortfall: ListShortfall?

        init(scope: ResourceScope<Model>, first: PageRequest, maxPages: Int) {
            self.scope = scope
            self.pending = first
            self.maxPages = maxPages
        }

        /// The next item, fetching the next page when this one is used up; `nil` after the last.
        /// - Throws: ``CRUDError`` (``CRUDError/cancelled`` when the task was cancelled).
        public mutating func next() async throws -> Model? {
            while true {
                // Checked before anything is handed out: a cancelled task gets no more items, fetched or not.
                if Task.isCancelled && (position < buffer.count || pending != nil) {
                    pending = nil
                    buffer = []
                    position = 0
                    throw CRUDError.cancelled
                }
                if position < buffer.count {
                    defer { position += 1 }
                    return buffer[position]
                }
                guard let request = pending else {
                    guard let shortfall else { return nil }
                    self.shortfall = nil
                    throw CRUDError.incompleteList(shortfall)
                }
                guard fetched.count < maxPages else {
                    pending = nil
                    throw CRUDError.invalidRequest(
                        reason: "\(Model.self).all() stopped after \(maxPages) pages (its page cap) with more to "
                            + "come; raise the cap with .all().limited(toPages:) if the list is really that long")
                }
                fetched.insert(request)
                let page: Page<Model>
                do {
                    page = try await scope.fetchPage(request)
                } catch {
                    pending = nil
                    throw error
                }
                let ids = page.items.map(\.id)
                if !ids.isEmpty, ids.allSatisfy({ $0.map(seen.contains) ?? false }) {
                    // Every item was seen before: the server sent a page already walked under another name.
                    pending = nil
                    buffer = []
                    shortfall = page.signals.shortfall(of: Model.self, received: received, pages: fetched.count)
                    continue
                }
                seen.formUnion(ids.compactMap { $0 })
                buffer = page.items
                position = 0
                let (sum, overflow) = received.addingReportingOverflow(page.items.count)
                received = overflow ? .max : sum
                pending = page.next.flatMap { fetched.contains($0) ? nil : $0 }
                if pending == nil {
                    shortfall = page.signals.shortfall(
                        of: Model.self, received: received, pages: fetched.count, endedWithoutNext: page.next == nil)
                }
            }
        }
    }

    /// Starts walking the pages.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(scope: scope, first: first, maxPages: maxPages)
    }

    // twin: future, via: scope
    /// Every item of every page, in order.
    /// - Returns: The items.
    /// - Throws: ``CRUDError``.
    @_disfavoredOverload
    public func collect() async throws -> [Model] {
        var items: [Model] = []
        for try await item in self { items.append(item) }
        return items
    }
}
