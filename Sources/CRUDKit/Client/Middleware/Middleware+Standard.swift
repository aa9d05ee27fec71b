/// A standard stage: a ``Middleware`` value carrying its own settings that the chain calls directly, without a
/// closure for the rest of the chain (the fast path of every request).
package protocol StandardStage: Middleware {
    /// Does this stage's part around `next`, the rest of the chain.
    func run(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareChain.Next
    ) async throws
        -> HTTPResponse
}

extension Array where Element == any Middleware {
    /// The chain every ``API`` starts with: the standard stages that are on by default, with default settings —
    /// ``RetryMiddleware`` (policy ``RetryPolicy/none``), ``ValidationMiddleware``, ``CoalescingMiddleware``.
    ///
    /// The standard stages, in their standard order (outermost first), which `insert(_:)` keeps:
    ///
    /// | stage | what it does | its settings |
    /// |---|---|---|
    /// | ``MiddlewareName/idempotencyKeys`` | ``IdempotencyKeyMiddleware``: gives a `POST` an `Idempotency-Key` (the same on every attempt) | — |
    /// | ``MiddlewareName/retry`` | ``RetryMiddleware``: runs the attempts, asks the retry policy after a failure, waits between | `policy` (a request's ``Request/retryPolicy`` wins) |
    /// | ``MiddlewareName/logging`` | ``LoggingMiddleware``: logs each attempt sent, answered and failed (and the retries) | `handler`, `redaction` |
    /// | ``MiddlewareName/validation`` | ``ValidationMiddleware``: the status check, anything but 2xx fails | — |
    /// | ``MiddlewareName/coalescing`` | ``CoalescingMiddleware``: identical reads in flight share one exchange | — |
    /// | ``MiddlewareName/cache`` | ``CacheMiddleware``: revalidating response cache; a write invalidates what it changes | `cache` |
    ///
    /// The transport is the end of the chain. A stage that is not in the list does not run: add one with
    /// `insert(_:)`, remove one with `removeAll(named:)`.
    ///
    /// ```swift
    /// let api = API(baseURL: base).with {
    ///     $0.middleware.insert(CacheMiddleware(ResponseCache()))
    ///     $0.middleware.insert(LoggingMiddleware { event in logger.debug("\(event)") })
    /// }
    /// ```
    public static var standard: [any Middleware] {
        [RetryMiddleware(), ValidationMiddleware(), CoalescingMiddleware()]
    }

    /// The standard stages' names in their standard order, outermost first (the table of `standard`).
    package static let standardOrder: [MiddlewareName] = [
        .idempotencyKeys, .retry, .logging, .validation, .coalescing, .cache,
    ]

    /// Places `stage`, one of the standard stages, at its standard position (see `standard`) among the standard
    /// stages already in the list, replacing the stage of the same name if there is one; any other middleware is
    /// added at the end (innermost, next to the transport).
    ///
    /// It goes just before (outside) the first standard stage that comes after it in the standard order, or at the
    /// end when there is none: where it would have been had it been in the list all along (a middleware of your own
    /// inserted after ``MiddlewareName/coalescing`` stays outside a cache added later).
    ///
    /// ```swift
    /// let api = API(baseURL: base).with { $0.middleware.insert(IdempotencyKeyMiddleware()) }  // outside retry
    /// ```
    public mutating func insert(_ stage: any Middleware) {
        let name = stage.name
        guard stage is any StandardStage,
            let rank = Self.standardOrder.firstIndex(of: name)
        else { return append(stage) }
        if let existing = firstIndex(named: name) {
            self[existing] = stage
            return
        }
        func rankOf(_ middleware: any Middleware) -> Int? {
            guard middleware is any StandardStage else { return nil }
            return Self.standardOrder.firstIndex(of: middleware.name)
        }
        insert(stage, at: firstIndex { rankOf($0).map { $0 > rank } ?? false } ?? endIndex)
    }

    /// This list with `stage` placed by `insert(_:)`: a standard stage at its standard position (replacing the
    /// stage of the same name), anything else at the end.
    ///
    /// ```swift
    /// let api = API(baseURL: base, middleware: .standard.inserting(RetryMiddleware(policy: .standard)))
    /// ```
    /// - Parameter stage: The stage.
    /// - Returns: The new list.
    public func inserting(_ stage: any Middleware) -> Self {
        var list = self
        list.insert(stage)
        return list
    }
}
