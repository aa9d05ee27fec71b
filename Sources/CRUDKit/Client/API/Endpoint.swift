import Foundation

/// Where a request goes: a path under the API's base URL, a list of path segments, or an absolute URL.
///
/// A string literal is a path; its `/` separate segments. Use ``segments(_:)`` whenever a segment comes from
/// data (an id, a slug): each element becomes exactly one percent-encoded segment, so an id such as `"../admin"`
/// or `"a/b"` stays inside its collection. An absolute URL bypasses the base URL, as do path strings that start
/// with `http://` or `https://` (a `next` link from a paginated answer, say).
///
/// ```swift
/// let list: Endpoint = "people"                   // https://api.example.com/v1/people
/// let one = Endpoint.segments(["people", id])    // https://api.example.com/v1/people/..%2Fadmin
/// let next = Endpoint.url(URL(string: "https://cdn.example.com/page/2")!)
/// ```
public enum Endpoint: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// A path relative to the base URL, with `/` between segments; a leading `/` is also relative to the base URL.
    case path(String)
    /// Path segments relative to the base URL; each is percent-encoded as one segment.
    case segments([String])
    /// An absolute URL, sent as given (only the query is added to).
    case url(URL)

    /// Creates a ``path(_:)`` endpoint from a string literal.
    public init(stringLiteral value: String) { self = .path(value) }

    /// The path, the segments joined with `/`, or the URL, with secrets hidden by the standard ``Redaction`` (a
    /// `token=` in a `next` link, a URL's password).
    public var description: String {
        switch self {
        case .path(let path): Redaction.standard.redact(text: path)
        case .segments(let segments): segments.joined(separator: "/")
        case .url(let url): Redaction.standard.redact(url)
        }
    }
}

/// A value that names an ``Endpoint``: a `String` path, a `URL`, or an `Endpoint` itself.
///
/// The calls on ``API`` take any of them, so `api.get("people")` and `api.get(nextPageURL)` both read naturally.
public protocol EndpointConvertible: Sendable {
    /// The endpoint this value names.
    var endpoint: Endpoint { get }
}

extension Endpoint: EndpointConvertible {
    /// The endpoint itself.
    public var endpoint: Endpoint { self }
}

extension String: EndpointConvertible {
    /// The string as a path relative to the base URL.
    public var endpoint: Endpoint { .path(self) }
}

extension URL: EndpointConvertible {
    /// The URL as an absolute endpoint.
    public var endpoint: Endpoint { .url(self) }
}
