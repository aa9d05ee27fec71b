import Foundation

extension MiddlewareContext {
    /// The low-cardinality template of the request's path, such as `/v1/people/{id}`, when CRUDKit knows it; set
    /// for the calls in which it runs.
    ///
    /// A model operation sets it (the model's collection path, `{id}` for the member's id and `{parent_id}` for a
    /// parent's, with the base URL's path in front), so a metric or span can name the route without the ids:
    /// `GET /v1/people/{id}` rather than `GET /v1/people/1234`. A plain `api.get("people/12")` leaves it `nil`;
    /// name such a route yourself for the requests sent inside `operation`:
    ///
    /// ```swift
    /// let avatar = try await MiddlewareContext.$urlTemplate.withValue("/v1/people/{id}/avatar") {
    ///     try await api.get("people/\(id)/avatar", as: Data.self)
    /// }
    /// ```
    ///
    /// It never holds a query; OpenTelemetry calls it `url.template`.
    @TaskLocal public static var urlTemplate: String?

    /// The template of the request's path (the task-local `MiddlewareContext.urlTemplate`), such as
    /// `/v1/people/{id}`; `nil` when it is not known.
    public var urlTemplate: String? { Self.urlTemplate }
}

extension ResourceScope {
    /// The template of `endpoint`, an endpoint this scope built: the parent's id as `{parent_id}`, the segment after
    /// the model's collection path as `{id}` when `member` says there is one (`nil`: when one segment follows it).
    func urlTemplate(of endpoint: Endpoint, member: Bool? = nil, action: String? = nil) -> String? {
        guard case .segments(let segments) = endpoint, segments.starts(with: parentSegments) else { return nil }
        var parts = Array(parentSegments.dropLast())
        if !parentSegments.isEmpty { parts.append("{parent_id}") }
        var rest = segments.dropFirst(parentSegments.count)
        // The paths of the operations, each split once (they are usually all one path).
        var paths: [String] = []
        for operation in CRUDOperation.allCases {
            let path = Model.path(for: operation)
            if !paths.contains(path) { paths.append(path) }
        }
        var collection: [String]?
        for path in paths {
            let candidate = path.split(separator: "/").map(String.init)
            if rest.starts(with: candidate), candidate.count > collection?.count ?? -1 { collection = candidate }
        }
        guard let collection else { return nil }
        parts += collection
        rest = rest.dropFirst(collection.count)
        let actionParts = action.map { $0.split(separator: "/").map(String.init) } ?? []
        if member ?? (rest.count == 1), !rest.isEmpty {
            parts.append("{id}")
            rest = rest.dropFirst()
        }
        guard Array(rest) == actionParts else { return nil }
        parts += actionParts
        var base = api.configuration.baseURL?.path ?? ""
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/" + parts.joined(separator: "/")
    }
}
