import Foundation

/// A model whose collection can be listed: `GET /people?…`, one page (``list(_:)->[Self]``,
/// ``page(_:)->Page<Self>``) or every page lazily (``all(_:)``).
///
/// ```swift
/// let adults = try await Person.list(["age_gte": "30"])      // the first page
/// let page = try await Person.page()                         // items, total, next
/// for try await person in Person.all() { … }                 // every page, fetched as needed
/// ```
public protocol Enumeratable: CRUDResource {}

extension ResourceScope where Model: Enumeratable {
    /// The pagination in force: the ``APIConventions/pagination`` of the model's conventions
    /// (``CRUDResource/conventions(from:)`` of the API's).
    package var pagination: Pagination { conventions.pagination }

    // twin: future
    /// The first page's items: `GET /people?…`.
    /// - Parameter query: Filters and other query parameters (`["age_gte": "30"]`).
    /// - Returns: The items of the first page.
    /// - Throws: ``CRUDError``.
    @_disfavoredOverload
    public func list(_ query: FormParameters = [:]) async throws -> [Model] {
        try await fetchPage(pagination.firstRequest(query)).items
    }

    // twin: future
    /// The first page, with the total when known and the way to the next page.
    /// - Parameter query: Filters and other query parameters.
    /// - Returns: The page.
    /// - Throws: ``CRUDError``.
    @_disfavoredOverload
    public func page(_ query: FormParameters = [:]) async throws -> Page<Model> {
        try await fetchPage(pagination.firstRequest(query))
    }

    /// Every item of every page, fetched lazily (see ``PageSequence``); a walk that would end short of the list
    /// fails with ``CRUDError/incompleteList(_:)``.
    /// - Parameter query: Filters and other query parameters.
    /// - Returns: The sequence; nothing is requested before iteration starts.
    public func all(_ query: FormParameters = [:]) -> PageSequence<Model> {
        PageSequence(scope: self, first: pagination.firstRequest(query))
    }

    // twin: future
    /// Fetches one page.
    /// - Parameter request: The page's request (``Page/next``, or a ``PageRequest`` of your own).
    /// - Returns: The page.
    /// - Throws: ``CRUDError``; ``CRUDError/invalidRequest(reason:)`` when a link leads to another origin.
    @_disfavoredOverload
    public func fetchPage(_ request: PageRequest) async throws -> Page<Model> {
        let endpoint: Endpoint
        if let url = request.url {
            try checkOrigin(of: url, link: "the next page link", reference: nil)
            endpoint = .url(url)
        } else {
            endpoint = try collectionEndpoint(for: .list)
        }
        let response = try await exchange(.get, endpoint, query: request.query)
        let json = try document(response)
        let pagination = pagination
        let items: [Model]
        do {
            items = try Model.decodeResources(
                from: json, at: pagination.itemsPath(in: json, collectionKey: Model.collectionKey),
                coding: coding)
        } catch {
            throw CRUDError.decoding(error, in: response)
        }
        remember(items)
        let signals = pagination.signals(in: json, response: response, request: request, count: items.count)
        let next = pagination.next(
            in: json, response: response, request: request, count: items.count, total: signals.total,
            resolve: { resolve($0, against: response.url ?? request.url) })
        return Page(items: items, next: next, scope: self, signals: signals)
    }
}

extension Enumeratable {
    // twin: future
    /// The first page's items: `GET /people?…`.
    ///
    /// ```swift
    /// let adults = try await Person.list(["age_gte": "30"])
    /// ```
    /// - Parameter query: Filters and other query parameters.
    /// - Returns: The items of the first page.
    /// - Throws: ``CRUDError``.
    @_disfavoredOverload
    public static func list(_ query: FormParameters = [:]) async throws -> [Self] {
        let scope = scope
        return try await scope.fetchPage(scope.pagination.firstRequest(query)).items
    }

    // twin: future
    /// The first page, with the total when known and the way to the next page.
    /// - Parameter query: Filters and other query parameters.
    /// - Returns: The page.
    /// - Throws: ``CRUDError``.
    @_disfavoredOverload
    public static func page(_ query: FormParameters = [:]) async throws -> Page<Self> {
        let scope = scope
        return try await scope.fetchPage(scope.pagination.firstRequest(query))
    }

    /// Every item of every page, fetched only as the consumer gets there (see ``PageSequence``); in `Future`
    /// code, ``PageSequence/collect()->Future<[Model]>`` gathers them. A walk that would end short of the list (fewer
    /// items than the server declared, or a full page with no way to the next) fails with
    /// ``CRUDError/incompleteList(_:)``.
    /// - Parameter query: Filters and other query parameters.
    /// - Returns: The sequence; nothing is requested before iteration starts.
    public static func all(_ query: FormParameters = [:]) -> PageSequence<Self> {
        scope.all(query)
    }
}
