import Foundation

/// Everything that can go wrong when CRUDKit talks to a server, as one enum a caller can switch on.
///
/// Every case carries what a person needs to act: the response with its body, the key path that did not
/// decode, why the network failed.
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
///
/// **The cases are frozen for 1.0.** Matching a case and binding its payload (`catch CRUDError.httpStatus(let r)`)
/// is how callers use this type, and only an enum gives that; so no case will be added or removed before 2.0, and
/// a `switch` over `CRUDError` written today stays exhaustive. What grows instead are the payloads: structs such as
/// ``TransportFailure`` whose reasons are static members (``TransportFailure/Reason/cannotConnect``),
/// the way AsyncHTTPClient's `HTTPClientError` grows, so a new reason never breaks a caller's `switch`.
public enum CRUDError: Error, Sendable {
    /// The request could not be built or was refused before sending (a header with CR/LF, a model without
    /// the id its path needs, a body that cannot be encoded).
    case invalidRequest(reason: String)
    /// The network failed: no connection, connection lost, TLS failure, bytes that are not HTTP. The failure's
    /// ``TransportFailure/reason`` says which, the same over every transport; its
    /// ``TransportFailure/underlying`` error is the transport's own.
    case transport(TransportFailure)
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
    /// The server accepted a write (a success status: the value was created, replaced or changed) but its answer
    /// could not be read, or the value could not be read back; `failure` says why. Do not send the write again:
    /// read the value, or take it from the write's response (kept here, body included).
    indirect case writeAccepted(HTTPResponse, failure: CRUDError)
    /// A walk over every page of a list (`all()`) would have ended with fewer items than the server declared, or
    /// on a full page with no way to ask for the next one: the items it handed out are not the whole list. The
    /// payload says what it saw and which pagination would fit.
    case incompleteList(ListShortfall)

    /// Which time limit ran out.
    public enum Timeout: Sendable, Hashable {
        /// No bytes arrived for this many seconds; 0 when a transport reported its own time-out for a request that
        /// named no idle time (`APIConfiguration.timeout` and the request's own both `nil`).
        case idle(TimeInterval)
        /// The whole exchange took longer than this many seconds.
        case deadline(TimeInterval)
        /// A `TokenRefresher` refresh the request waited for ran longer than its limit of this many seconds
        /// (`TokenRefresher.refreshTimeout`) and was abandoned.
        case tokenRefresh(TimeInterval)
    }

    /// Where and why a body did not map to the expected type.
    ///
    /// Its descriptions hide secrets as those of an error with a response do: a decoding failure made by CRUDKit
    /// from a response keeps the credentials the request sent and the API's ``Redaction``, so a body that echoes the
    /// request's token, API key or a secret query value shows `Redaction/placeholder` in their place. The body is
    /// redacted before it is cut to the 200 bytes a description quotes, so no part of a secret is left at the cut.
    public struct DecodingFailure: Sendable, Hashable, CustomStringConvertible {
        /// The path to the value that failed, such as `results[3].age`; empty for the document itself.
        public var keyPath: String
        /// What the mapping expected there, such as `Int` or `an object`.
        public var expected: String
        /// What the document held there, such as `a string "forty"` or `nothing`.
        public var found: String
        /// The first 200 bytes of the document, as text, as received (descriptions quote it redacted).
        public var bodySnippet: String
        /// The start of the document that descriptions quote once it is redacted: up to
        /// `CRUDError.redactedBodyLength` bytes, a copy (never the whole body of a large response).
        private var quotedBody: Data
        /// Whether the document is longer than ``quotedBody``.
        private var quotedBodyIsCut: Bool
        /// The credentials the request sent and the API's ``Redaction``; not part of the value (they compare equal
        /// and hash nothing).
        package var credentials: SentCredentials

        /// Creates a decoding failure; `body` is cut to its first 200 bytes.
        package init(keyPath: String, expected: String, found: String, body: Data) {
            self.init(keyPath: keyPath, expected: expected, found: found, body: body, credentials: .none)
        }

        /// Creates a decoding failure of a body answering a request that sent `credentials`.
        package init(keyPath: String, expected: String, found: String, body: Data, credentials: SentCredentials) {
            self.keyPath = keyPath
            self.expected = expected
            self.found = found
            self.bodySnippet = String(decoding: body.prefix(200), as: UTF8.self)
            self.quotedBody = Data(Array(body.prefix(CRUDError.redactedBodyLength)))
            self.quotedBodyIsCut = body.count > CRUDError.redactedBodyLength
            self.credentials = credentials
        }

        /// One line naming the key path, the expectation and what was found; a value found under a key that
        /// names a secret (by ``Redaction/secretNames``) is not shown, nor any secret in the text (the API's
        /// ``Redaction`` and the credentials the request sent included).
        public var description: String {
            let place = keyPath.isEmpty ? "the document" : "`\(keyPath)`"
            return credentials.redact("expected \(expected) at \(place) but found \(shownFound)")
        }

        /// The start of the body as a description quotes it: redacted, then cut to 200 bytes.
        package var redactedSnippet: String {
            CRUDError.quote(quotedBody, isCut: quotedBodyIsCut, credentials: credentials)
        }

        /// ``found``, its value hidden when the last key of ``keyPath`` names a secret.
        private var shownFound: String {
            let key = keyPath.split(whereSeparator: { $0 == "." || $0 == "[" || $0 == "]" }).last.map(String.init)
            guard let key, credentials.redaction.hidesQueryParameter(key) else { return found }
            for kind in ["a string ", "a number ", "a Boolean "] where found.hasPrefix(kind) {
                return kind + Redaction.placeholder
            }
            return found
        }
    }

    /// A ``transport(_:)`` error for the transport's own `error`, its reason read from it: a `URLError` (or an
    /// error in `NSURLErrorDomain`) or a POSIX error by its code, anything else ``TransportFailure/Reason/other``.
    ///
    /// - Parameter underlying: The transport's error.
    /// - Returns: The error.
    @_spi(TransportKit) public static func transport(underlying: any Error) -> CRUDError {
        .transport(TransportFailure(underlying: underlying))
    }

    /// The response the server sent, for the cases that have one.
    public var response: HTTPResponse? {
        switch self {
        case .httpStatus(let response), .conflict(let response), .validation(_, let response),
            .writeAccepted(let response, _):
            response
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
