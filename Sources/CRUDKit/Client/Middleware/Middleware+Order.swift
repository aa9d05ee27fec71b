extension Array where Element == any Middleware {
    /// The position of the first middleware named `name`, if any.
    package func firstIndex(named name: MiddlewareName) -> Int? {
        firstIndex { $0.name == name }
    }

    /// The stages whose place decides whether they work, as pairs `outer` must stay outside (before) `inner`:
    /// ``RetryMiddleware`` and a ``TokenRefresher`` react to the error ``ValidationMiddleware`` makes of a failed
    /// status (inside it, they see a 503 or a 401 as an answer and let it through), and ``CacheMiddleware`` serves
    /// the `304 Not Modified` that validation would turn into an error.
    ///
    /// Keyed on the stages' own names, which no name made from a string equals: a middleware of yours is placed by
    /// a rule only when it answers one of these names itself.
    package static let placementRules: [(outer: MiddlewareName, inner: MiddlewareName)] = [
        (.retry, .validation), (.tokenRefresh, .validation), (.validation, .cache),
    ]

    /// The place nearest `index` where a middleware named `name` works, by ``placementRules`` against the stages
    /// in the list: `index` itself when it already works there (or when the list already breaks the rules).
    func workingIndex(for name: MiddlewareName, near index: Int) -> Int {
        var lowest = 0
        var highest = count
        for rule in Self.placementRules {
            if rule.inner == name, let outer = firstIndex(named: rule.outer) { lowest = Swift.max(lowest, outer + 1) }
            if rule.outer == name, let inner = firstIndex(named: rule.inner) { highest = Swift.min(highest, inner) }
        }
        guard lowest <= highest else { return index }
        return Swift.min(Swift.max(index, lowest), highest)
    }

    /// Inserts `middleware` just before (outside) the first one named `name`, or at the end (innermost, next to
    /// the transport) when there is none — unless that is a place where it cannot work (see `insert(_:)`): a
    /// ``TokenRefresher`` or a ``RetryMiddleware`` named to go inside ``MiddlewareName/validation`` goes just
    /// outside it instead, a ``CacheMiddleware`` named to go outside validation just inside it.
    ///
    /// ```swift
    /// let api = API(baseURL: base).with { $0.middleware.insert(Metrics(), before: .retry) }  // once per call
    /// ```
    public mutating func insert(_ middleware: any Middleware, before name: MiddlewareName) {
        insert(middleware, at: workingIndex(for: middleware.name, near: firstIndex(named: name) ?? endIndex))
    }

    /// Inserts `middleware` just after (inside) the first one named `name`, or at the end (innermost, next to the
    /// transport) when there is none — unless that is a place where it cannot work (see `insert(_:)`): a
    /// ``TokenRefresher`` or a ``RetryMiddleware`` named to go inside ``MiddlewareName/validation`` goes just
    /// outside it instead, a ``CacheMiddleware`` named to go outside validation just inside it.
    ///
    /// ```swift
    /// let api = API(baseURL: base).with { $0.middleware.insert(Metrics(), after: .retry) }  // once per attempt
    /// ```
    public mutating func insert(_ middleware: any Middleware, after name: MiddlewareName) {
        let anchor = firstIndex(named: name).map { $0 + 1 } ?? endIndex
        insert(middleware, at: workingIndex(for: middleware.name, near: anchor))
    }

    /// Removes every middleware named `name`.
    public mutating func removeAll(named name: MiddlewareName) {
        removeAll { $0.name == name }
    }

    /// The names of the middlewares, in order (outermost first).
    package var names: [MiddlewareName] { map(\.name) }
}
