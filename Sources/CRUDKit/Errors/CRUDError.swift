import Foundation

/// Everything that can go wrong when CRUDKit talks to a server, as one enum a caller can switch on.
///
/// Every case carries what a person needs to act: the response with its body, the key path that did not
/// decode, the underlying network error.
///
/// ```swift
/// do {
///     let person = try await Person.read(id: 12)
/// } catch CRUDError.httpStatus(let response) where response.status == 404 {
///     // not there
/// } catch let error as CRUDError {
///     log(error.localizedDescription)
/// }
/// ```
public enum CRUDError: Error, Sendable {
    /// The request could not be built or was refused before sending (a header with CR/LF, a model without
    /// the id its path needs, a body that cannot be encoded).
    case invalidRequest(reason: String)
    /// The network failed: no connection, connection lost, TLS failure. The underlying error says which.
    case transport(underlying: any Error)
    /// No answer in time.
    case timedOut(Timeout)
    /// The request was cancelled through `Future.cancel()` or by cancelling the awaiting `Task`.
    case cancelled
    /// The server answered with a status that is not a success; the whole response is kept, body included.
    case httpStatus(HTTPResponse)
    /// The server refused a conditional write (412 Precondition Failed): the resource changed since it was read.
    case conflict(HTTPResponse)
    /// A response validator rejected an answer the server sent with a success status.
    case validation(message: String, response: HTTPResponse)
    /// The body could not be mapped to the expected type.
    case decoding(DecodingFailure)
    /// The response body was larger than the API's configured maximum.
    case responseTooLarge(limit: Int)
    /// The server redirected more times than the API allows.
    case tooManyRedirects(limit: Int)

    /// Which time limit ran out.
    public enum Timeout: Sendable, Hashable {
        /// No bytes arrived for this many seconds.
        case idle(TimeInterval)
        /// The whole exchange took longer than this many seconds.
        case deadline(TimeInterval)
    }

    /// Where and why a body did not map to the expected type.
    public struct DecodingFailure: Sendable, Hashable, CustomStringConvertible {
        /// The path to the value that failed, such as `results[3].age`; empty for the document itself.
        public var keyPath: String
        /// What the mapping expected there, such as `Int` or `an object`.
        public var expected: String
        /// What the document held there, such as `a string "forty"` or `nothing`.
        public var found: String
        /// The first 200 bytes of the document, as text.
        public var bodySnippet: String

        /// Creates a decoding failure; `body` is cut to its first 200 bytes.
        public init(keyPath: String, expected: String, found: String, body: Data) {
            self.keyPath = keyPath
            self.expected = expected
            self.found = found
            self.bodySnippet = String(decoding: body.prefix(200), as: UTF8.self)
        }

        /// One line naming the key path, the expectation and what was found.
        public var description: String {
            let place = keyPath.isEmpty ? "the document" : "`\(keyPath)`"
            return "expected \(expected) at \(place) but found \(found)"
        }
    }

    /// The response the server sent, for the cases that have one.
    public var response: HTTPResponse? {
        switch self {
        case .httpStatus(let response), .conflict(let response), .validation(_, let response): response
        default: nil
        }
    }

    /// The HTTP status, for the cases that have a response.
    public var status: Int? { response?.status }

    /// Whether the server answered 404 Not Found.
    public var isNotFound: Bool { status == 404 }

    /// Whether the request was cancelled.
    public var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }
}

extension CRUDError: LocalizedError {
    /// A sentence a person can act on.
    public var errorDescription: String? {
        switch self {
        case .invalidRequest(let reason):
            return "The request was not sent: \(reason)."
        case .transport(let underlying):
            return "The server could not be reached: \(underlying.localizedDescription)"
        case .timedOut(.idle(let seconds)):
            return "The server sent nothing for \(seconds) seconds."
        case .timedOut(.deadline(let seconds)):
            return "The request did not finish within its \(seconds) second deadline."
        case .cancelled:
            return "The request was cancelled."
        case .httpStatus(let response):
            let snippet = String(decoding: response.body.prefix(200), as: UTF8.self)
            let advice = Self.redirectAdvice(for: response).map { " " + $0 } ?? ""
            return "The server answered \(response.status)" + (snippet.isEmpty ? "." : ": \(snippet)") + advice
        case .conflict:
            return "The resource changed on the server since it was read (412); read it again before writing."
        case .validation(let message, let response):
            return "The server answered \(response.status) but the response was rejected: \(message)."
        case .decoding(let failure):
            return "The response could not be read: \(failure). It began: \(failure.bodySnippet)"
        case .responseTooLarge(let limit):
            return "The response was larger than the \(limit) byte limit."
        case .tooManyRedirects(let limit):
            return "The server redirected more than \(limit) times."
        }
    }
}
