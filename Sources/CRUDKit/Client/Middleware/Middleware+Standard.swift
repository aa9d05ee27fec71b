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
    /// **Where a stage must be to work.** Some stages only work on one side of ``MiddlewareName/validation``, and
    /// every `insert` (`insert(_:)`, `insert(_:before:)`, `insert(_:after:)`) puts them there, whatever place it is
    /// given, moving them to the nearest place where they work:
    ///
    /// | stage | must be | because |
    /// |---|---|---|
    /// | ``RetryMiddleware`` | outside ``MiddlewareName/validation`` | inside, a 503 is an answer, not a failed attempt, and is never retried |
    /// | a ``TokenRefresher`` (``MiddlewareName/tokenRefresh``) | outside ``MiddlewareName/validation`` | inside, a 401 is an answer, not the error it refreshes on: no refresh ever runs |
    /// | ``CacheMiddleware`` | inside ``MiddlewareName/validation`` | outside, a `304 Not Modified` is already an error when it reaches the cache |
    ///
    /// So `insert(refresher)` puts a refresher just outside validation (after retry and logging), as does
    /// `insert(refresher, after: .validation)`; `insert(refresher, after: .retry)` and `before: .retry` are places
    /// where it works and are kept. The rules hold against the stages in the list when you insert: a list you
    /// build or reorder by hand (`append`, assignment) is taken as written.
    ///
    /// The standard order and these rules key on the stages' names (``MiddlewareName/retry``, …), which CRUDKit
    /// makes and no string equals: a middleware of yours named `"cache"` goes where you put it, while one that
    /// answers `.retry` as its name is placed (and replaced by `insert(_:)`) as the retry stage.
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

    /// Places `stage`, one of the standard stages (a middleware named with one of their names, which no string
    /// equals), at its standard position (see `standard`) among the standard stages already in the list, replacing
    /// the stage of the same name if there is one; a ``TokenRefresher`` just
    /// outside ``MiddlewareName/validation``, where it sees the 401 as an error (see `standard` for the stages whose
    /// place matters); any other middleware at the end (innermost, next to the transport).
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
        guard let rank = Self.standardOrder.firstIndex(of: name) else {
            return insert(stage, at: workingIndex(for: name, near: endIndex))
        }
        if let existing = firstIndex(named: name) {
            self[existing] = stage
            return
        }
        let standardIndex =
            firstIndex { Self.standardOrder.firstIndex(of: $0.name).map { $0 > rank } ?? false } ?? endIndex
        insert(stage, at: workingIndex(for: name, near: standardIndex))
    }

    /// This list with `stage` placed by `insert(_:)`: a standard stage at its standard position (replacing the
    /// stage of the same name), a ``TokenRefresher`` just outside validation, anything else at the end.
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
