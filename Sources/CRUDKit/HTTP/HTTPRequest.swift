import Foundation

/// A request to send: method, absolute URL, headers, body and timeout.
///
/// `HTTPRequest` is a value; interceptors adapt it by returning a changed copy.
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
    /// How long the request may wait for the next bytes before it fails with a timeout; `nil` uses the API's.
    public var timeout: TimeInterval?

    /// Creates a request.
    public init(
        method: HTTPMethod = .get,
        url: URL,
        headers: HTTPHeaders = [:],
        body: HTTPBody = .none,
        timeout: TimeInterval? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}
