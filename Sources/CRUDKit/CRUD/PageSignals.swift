/// What one answer of a list said about its pages, kept with the ``Page`` so that a walk (``PageSequence``) can
/// tell a list that ended from one that was cut short.
struct PageSignals: Sendable, Hashable {
    /// How many items the page held.
    var count: Int
    /// The total the server declared, if any.
    var total: Int?
    /// The page size in force: the server's own figure, else the one asked for, else the configured one.
    var pageSize: Int?
    /// Whether the server said this is the last page (a `next` of `null`, a `Link` header without `rel="next"`,
    /// the last page number reached).
    var saysLast: Bool
    /// What the answer said, one phrase each, for ``CRUDKitCore/ListShortfall/signals``.
    var found: [String]
    /// The pagination that would walk this server.
    var suggestion: String

    /// Signals that raise no alarm: what a page made by hand (`Page.init(items:total:next:scope:)`) carries.
    static func neutral(count: Int, total: Int?) -> PageSignals {
        PageSignals(count: count, total: total, pageSize: nil, saysLast: true, found: [], suggestion: "")
    }
}
