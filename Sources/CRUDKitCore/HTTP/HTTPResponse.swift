import Foundation

/// A response as received: status, headers, the whole body and the URL it finally came from.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code, such as 200 or 404.
    public var status: Int
    /// The header fields, compared ignoring case.
    public var headers: HTTPHeaders
    /// The body bytes; empty when there was none.
    public var body: Data
    /// The URL the response came from, after any redirects.
    public var url: URL?
    /// The credentials the request sent and the API's ``Redaction``, so that descriptions of the response and of
    /// errors that keep it hide them; not part of the response's value (equality, hashing, mirror).
    package var sentCredentials: SentCredentials = .none

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// Whether the status is in the 2xx range.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The media type of the body without parameters, lower-cased (`application/json`), if one was sent.
    public var mediaType: String? {
        guard let value = headers["Content-Type"] else { return nil }
        let type = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
