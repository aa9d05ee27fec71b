extension Array where Element == any Middleware {
    /// The position of the first middleware named `name`, if any.
    package func firstIndex(named name: MiddlewareName) -> Int? {
        firstIndex { $0.name == name }
    }

    /// Inserts `middleware` just before (outside) the first one named `name`, or at the end (innermost, next to
    /// the transport) when there is none.
    ///
    /// ```swift
    /// let api = API(baseURL: base).with { $0.middleware.insert(Metrics(), before: .retry) }  // once per call
    /// ```
    public mutating func insert(_ middleware: any Middleware, before name: MiddlewareName) {
        insert(middleware, at: firstIndex(named: name) ?? endIndex)
    }

    /// Inserts `middleware` just after (inside) the first one named `name`, or at the end (innermost, next to the
    /// transport) when there is none.
    ///
    /// ```swift
    /// let api = API(baseURL: base).with { $0.middleware.insert(Metrics(), after: .retry) }  // once per attempt
    /// ```
    public mutating func insert(_ middleware: any Middleware, after name: MiddlewareName) {
        insert(middleware, at: firstIndex(named: name).map { $0 + 1 } ?? endIndex)
    }

    /// Removes every middleware named `name`.
    public mutating func removeAll(named name: MiddlewareName) {
        removeAll { $0.name == name }
    }

    /// The names of the middlewares, in order (outermost first).
    package var names: [MiddlewareName] { map(\.name) }
}
