import Foundation

/// A request to send: method, absolute URL, headers, body and timeout.
///
/// `HTTPRequest` is a value; middleware adapts it by passing a changed copy on.
///
/// ```swift
/// var request = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/people/12")!)
/// request.headers["Accept"] = "application/json"
/// ```
public struct HTTPRequest: Sendable, Hashable {
    /// The request method.
    public var method: HTTPMethod
    /// The absolute URL, query included.
    public var url: URL
    /// The header fields to send.
    public var headers: HTTPHeaders
    /// The body to send.
    public var body: HTTPBody
    /// How long the request may wait for the next bytes before it fails with a timeout; `nil` uses the transport's.
    /// An `API` stamps its own timeout here when it has one (see `APIConfiguration.timeout`).
    public var timeout: TimeInterval?
    /// How long the whole exchange (redirects included) may take before it fails with
    /// ``CRUDError/Timeout/deadline(_:)``; `nil` (or an infinite value) for none: a transport has no default of its
    /// own. An `API` stamps its default here (`APIConfiguration.deadline`, or `downloadDeadline` for a file).
    public var deadline: TimeInterval?
    /// The lower-cased names of the headers of this request that carry a credential, besides the standard ones
    /// (`RedirectPolicy.credentialHeaders`): a redirect to another origin drops them. The API fills it from its
    /// ``Redaction`` list, and a `TokenRefresher` adds its header; add your own when you set a secret header.
    public var sensitiveHeaderNames: Set<String> = []
    /// Whether the redirect follower that sends this request follows a redirect answering it (see
    /// ``RedirectStamp``); not part of the request's value (equality, hashing, description).
    package var redirectStamp = RedirectStamp()

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - url: The absolute URL, query included.
    ///   - headers: The header fields to send.
    ///   - body: The body to send.
    ///   - timeout: The idle timeout in seconds; `nil` uses the transport's.
    ///   - deadline: The total time allowed in seconds; `nil` for none.
    public init(
        method: HTTPMethod = .get,
        url: URL,
        headers: HTTPHeaders = [:],
        body: HTTPBody = .none,
        timeout: TimeInterval? = nil,
        deadline: TimeInterval? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.deadline = deadline
    }
}
