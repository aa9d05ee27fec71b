import Foundation

/// Every item of a paginated list, fetched page by page as the consumer gets there: the answer of
/// ``Enumeratable/all(_:)``.
///
/// Nothing is requested until iteration starts; the next page is requested only when the items of the previous
/// one have been consumed. When the iterating task is cancelled, iteration ends with ``CRUDError/cancelled``
/// before the next request. A `next` link pointing at a page already fetched ends the walk, so a server that
/// links a page to itself cannot loop forever; a `next` link to another origin than the API's base URL fails with
/// ``CRUDError/invalidRequest(reason:)`` (the API's headers, credentials included, would go there).
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
    public let scope: ResourceScope<Model>
    /// The first page's request.
    public let first: PageRequest

    /// Creates the sequence.
    /// - Parameters:
    ///   - scope: Where the pages are read from.
    ///   - first: The first page's request.
    public init(scope: ResourceScope<Model>, first: PageRequest) {
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

        init(scope: ResourceScope<Model>, first: PageRequest) {
            self.scope = scope
            self.pending = first
        }

        /// The next item, fetching the next page when this one is used up; `nil` after the last.
        /// - Throws: ``CRUDError`` (``CRUDError/cancelled`` when the task was cancelled).
        public mutating func next() async throws -> Model? {
            while true {
                if position < buffer.count {
                    defer { position += 1 }
                    return buffer[position]
                }
                guard let request = pending else { return nil }
                guard !Task.isCancelled else {
                    pending = nil
                    throw CRUDError.cancelled
                }
                fetched.insert(request)
                let page: Page<Model>
                do {
                    page = try await scope.fetchPage(request)
                } catch {
                    pending = nil
                    throw error
                }
                buffer = page.items
                position = 0
                pending = page.next.flatMap { fetched.contains($0) ? nil : $0 }
            }
        }
    }

    /// Starts walking the pages.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(scope: scope, first: first)
    }

    /// Every item of every page, in order.
    /// - Returns: The items.
    /// - Throws: ``CRUDError``.
    public func collect() async throws -> [Model] {
        var items: [Model] = []
        for try await item in self { items.append(item) }
        return items
    }

    /// Every item of every page, as a ``Future``.
    /// - Returns: A future of the items; cancel it to stop fetching.
    public func collect() -> Future<[Model]> {
        let sequence = self
        return scope.future {
            var items: [Model] = []
            for try await item in sequence { items.append(item) }
            return items
        }
    }
}
