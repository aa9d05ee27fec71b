import Foundation

/// Which page to fetch: the collection with a query, or a URL the server gave (a `next` link).
public struct PageRequest: Sendable, Hashable {
    /// An absolute URL from the server; `nil` for the model's collection path.
    public var url: URL?
    /// The query parameters (for the collection path; a server's URL carries its own).
    public var query: FormParameters

    /// The collection path with `query`.
    /// - Parameter query: The query parameters.
    public init(query: FormParameters = [:]) {
        self.url = nil
        self.query = query
    }

    /// A URL the server gave.
    /// - Parameter url: The absolute URL.
    public init(url: URL) {
        self.url = url
        self.query = [:]
    }
}

extension PageRequest: CustomStringConvertible {
    /// The server's URL or the collection's query, with secrets hidden by the standard ``Redaction`` (some APIs put
    /// an `access_token` in their `next` links).
    public var description: String {
        if let url { return Redaction.standard.redact(url) }
        return query.fields.isEmpty ? "the collection" : "the collection with \(query)"
    }
}
