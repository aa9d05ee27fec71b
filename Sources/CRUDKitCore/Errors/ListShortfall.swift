import Foundation

/// What a walk over every page of a list (`all()`) saw when it ended with fewer items than the server said it
/// had, or on a full page with no way to ask for the next one: the payload of ``CRUDError/incompleteList(_:)``.
///
/// A struct rather than the case's own values, so that it can learn more without breaking a caller's `switch`.
///
/// ```swift
/// } catch CRUDError.incompleteList(let shortfall) {
///     log("\(shortfall.received) of \(shortfall.declaredTotal ?? -1): \(shortfall.suggestion)")
/// }
/// ```
public struct ListShortfall: Sendable, Hashable, CustomStringConvertible {
    /// The model whose list was walked (`"Person"`).
    public var resource: String
    /// How many items the walk handed out, over every page it read.
    public var received: Int
    /// How many pages it read.
    public var pages: Int
    /// The total the server declared on the last page read (a body member or a header such as `X-Total-Count`),
    /// if it declared one.
    public var declaredTotal: Int?
    /// The page size in force on the last page (the server's own figure, the one asked for, or the configured one),
    /// if known.
    public var pageSize: Int?
    /// How many items the last page held.
    public var lastPageCount: Int
    /// What the last answer said about pages, one entry each ("`metadata.total` 24 in the body",
    /// "`X-Total-Count` header 24", "no next-page link").
    public var signals: [String]
    /// The pagination that would walk this server (`Pagination.vapor`, or which key or parameter to name).
    public var suggestion: String

    /// Creates a shortfall.
    /// - Parameters:
    ///   - resource: The model's name.
    ///   - received: The items handed out.
    ///   - pages: The pages read.
    ///   - declaredTotal: The total the server declared, if any.
    ///   - pageSize: The page size in force, if known.
    ///   - lastPageCount: The items of the last page.
    ///   - signals: What the last answer said about pages.
    ///   - suggestion: The pagination that would fit.
    package init(
        resource: String, received: Int, pages: Int, declaredTotal: Int?, pageSize: Int?, lastPageCount: Int,
        signals: [String], suggestion: String
    ) {
        self.resource = resource
        self.received = received
        self.pages = pages
        self.declaredTotal = declaredTotal
        self.pageSize = pageSize
        self.lastPageCount = lastPageCount
        self.signals = signals
        self.suggestion = suggestion
    }

    /// One sentence: what was received against what was declared, what the server said, and what would fit.
    public var description: String {
        let pageWord = pages == 1 ? "page" : "pages"
        let why: String
        if let declaredTotal, received < declaredTotal {
            why = "but the server declared \(declaredTotal)"
        } else if let pageSize {
            why = "and its last page was full (\(lastPageCount) of \(pageSize)) with no way to ask for the next one"
        } else {
            why = "and its last page was full with no way to ask for the next one"
        }
        let seen = signals.isEmpty ? "" : " (the last answer had: \(signals.joined(separator: ", ")))"
        return "the list of \(resource) ended after \(received) items in \(pages) \(pageWord) \(why)\(seen); "
            + suggestion
    }
}
