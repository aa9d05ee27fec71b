import Foundation

/// Receives the ``LogEvent``s of an ``API``; it is called on the thread of the request, so keep it quick.
public typealias LogHandler = @Sendable (LogEvent) -> Void

/// Something that happened to a request: sent, answered, failed, or about to be retried.
///
/// URLs and headers are already redacted (see ``Redaction``), and the description hides by the standard rules
/// whatever an event built by hand carries, so an event can be written anywhere.
///
/// ```swift
/// let api = API(baseURL: base, middleware: .standard.inserting(LoggingMiddleware { event in logger.debug("\(event)") }))
/// // → GET https://api.example.com/v1/people/12 (attempt 1)
/// // ← 200 GET https://api.example.com/v1/people/12 in 12 ms, 0 B sent, 342 B received (attempt 1)
/// ```
public struct LogEvent: Sendable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable {
        /// The request was handed to the transport.
        case requestSent
        /// A response arrived with this status (before validation).
        case responseReceived(status: Int)
        /// The attempt failed with this error.
        case failed(CRUDError)
        /// The request will be sent again after this wait.
        case retrying(after: Duration)
    }

    /// What happened.
    public let kind: Kind
    /// The request method.
    public let method: HTTPMethod
    /// The request URL, with secret query values hidden.
    public let url: String
    /// The request's headers for ``Kind/requestSent``, the response's for ``Kind/responseReceived(status:)``, with
    /// secret values hidden; empty otherwise.
    public let headers: HTTPHeaders
    /// The attempt, from 1.
    public let attempt: Int
    /// The time from sending to the response or failure; `nil` for the other kinds.
    public let duration: Duration?
    /// The size of the request body in bytes; `nil` when streamed from a file.
    public let requestBodySize: Int?
    /// The size of the response body in bytes, for ``Kind/responseReceived(status:)``.
    public let responseBodySize: Int?

    /// Creates an event.
    package init(
        kind: Kind,
        method: HTTPMethod,
        url: String,
        headers: HTTPHeaders = [:],
        attempt: Int,
        duration: Duration? = nil,
        requestBodySize: Int? = nil,
        responseBodySize: Int? = nil
    ) {
        self.kind = kind
        self.method = method
        self.url = url
        self.headers = headers
        self.attempt = attempt
        self.duration = duration
        self.requestBodySize = requestBodySize
        self.responseBodySize = responseBodySize
    }

    /// One line: an arrow, the status if any, method, URL, timing and sizes, and the attempt.
    public var description: String {
        Redaction.standard.redact(text: line)
    }

    /// The line before redaction.
    private var line: String {
        let sent = requestBodySize.map { "\($0) B" } ?? "a file"
        let took = duration.map { String(format: "%.0f ms", $0.seconds * 1000) } ?? "?"
        switch kind {
        case .requestSent:
            return "→ \(method) \(url) (attempt \(attempt))"
        case .responseReceived(let status):
            let received = responseBodySize.map { "\($0) B" } ?? "?"
            return "← \(status) \(method) \(url) in \(took), \(sent) sent, \(received) received (attempt \(attempt))"
        case .failed(let error):
            return "✗ \(method) \(url) after \(took): \(error.localizedDescription) (attempt \(attempt))"
        case .retrying(let delay):
            let wait = String(format: "%.0f ms", delay.seconds * 1000)
            return "↻ \(method) \(url) again in \(wait) (after attempt \(attempt))"
        }
    }
}
