import Foundation

extension CRUDError: LocalizedError, CustomStringConvertible, CustomDebugStringConvertible {
    /// How many bytes of a body a description quotes.
    static let quotedBodyLength = 200
    /// How many bytes of a body are redacted before the quote is cut from them.
    static let redactedBodyLength = quotedBodyLength * 16

    /// A sentence a person can act on, with every secret hidden: the URL's user info and secret query values, the
    /// credentials the request sent, secret keys of a quoted body (see ``Redaction/redact(text:hiding:)``).
    public var errorDescription: String? {
        let credentials = sentCredentials
        return credentials.redact(sentence(credentials))
    }

    /// The credentials the request sent and the API's ``Redaction``: kept by the response, or by the decoding
    /// failure of a body (which keeps no response).
    private var sentCredentials: SentCredentials {
        if let response { return response.sentCredentials }
        if case .decoding(let failure) = self { return failure.credentials }
        return .none
    }

    /// The same sentence as ``errorDescription``, so `print(error)` and `"\(error)"` show it: for an error answer,
    /// the field messages the server sent (each bounded), not its raw body (see ``debugDescription``).
    public var description: String { errorDescription ?? "CRUDError" }

    /// ``description`` and, for an error answer whose messages it shows, the start of the raw body (redacted the
    /// same way), for `debugPrint(error)`, `String(reflecting: error)` and debug-level logs.
    public var debugDescription: String {
        guard let response, case .httpStatus = self, Self.summary(of: response) != nil else { return description }
        let credentials = sentCredentials
        let quote = Self.quotedBody(of: response, credentials: credentials)
        return description + (quote.isEmpty ? "" : " The body began: \(quote)")
    }

    /// The sentence before the last redaction pass.
    private func sentence(_ credentials: SentCredentials) -> String {
        switch self {
        case .invalidRequest(let reason):
            return "The request was not sent: \(reason)."
        case .transport(let failure):
            let underlying = failure.underlying
            let what =
                switch failure.reason {
                case .connectionLost: "The connection to the server was lost"
                case .protocolViolation: "The server's answer broke the HTTP rules"
                case .shutDown: "The transport was shut down before the request ended"
                default: "The server could not be reached"
                }
            return "\(what)\(Self.place(ofFailure: underlying)): \(Self.text(of: underlying))"
        case .timedOut(.idle(let seconds)):
            // 0: a transport reported a time-out for a request that named no idle time (its own setting applied).
            guard seconds > 0 else { return "The server sent nothing for the transport's own idle time." }
            return "The server sent nothing for \(seconds) seconds."
        case .timedOut(.deadline(let seconds)):
            return "The request did not finish within its \(seconds) second deadline."
        case .timedOut(.tokenRefresh(let seconds)):
            return "The access token could not be refreshed within \(seconds) seconds; the request was not sent again."
        case .cancelled:
            return "The request was cancelled."
        case .httpStatus(let response):
            let snippet =
                Self.summary(of: response) ?? Self.quotedBody(of: response, credentials: credentials)
            let advice = Self.redirectAdvice(for: response).map { " " + $0 } ?? ""
            return "The server answered \(response.status)\(Self.place(of: response))"
                + (snippet.isEmpty ? "." : ": \(snippet)") + advice
        case .conflict(let response):
            return "The server refused the write\(Self.place(of: response)) with \(response.status): the resource "
                + "changed since it was read; read it again before writing."
        case .validation(let message, let response):
            return "The server answered \(response.status)\(Self.place(of: response)) but the response was rejected: "
                + "\(message)."
        case .decoding(let failure):
            return "The response could not be read: \(failure). It began: \(failure.redactedSnippet)"
        case .responseTooLarge(let limit):
            return "The response was larger than the \(limit) byte limit."
        case .tooManyRedirects(let limit):
            return "The server redirected more than \(limit) times."
        case .writeAccepted(let response, let failure):
            let reason: String
            if case .decoding(let decoding) = failure {
                reason = "\(decoding) (the answer began: \(decoding.redactedSnippet))."
            } else {
                reason = failure.sentence(credentials)
            }
            return "The server accepted the write (\(response.status))\(Self.place(of: response)) but its answer "
                + "could not be read: \(reason) The write happened; read the value again rather than sending the "
                + "write again."
        case .incompleteList(let shortfall):
            return "The list is incomplete: \(shortfall)."
        }
    }

    /// ` for <url>` when the response knows its URL.
    private static func place(of response: HTTPResponse) -> String {
        response.url.map { " for \($0.absoluteString)" } ?? ""
    }

    /// ` at <url>` when the error names the URL that failed (Foundation keeps it in the user info; a `URLError`'s
    /// `failingURL` is read from the same key, so this layer needs no FoundationNetworking).
    private static func place(ofFailure error: any Error) -> String {
        let info = (error as NSError).userInfo
        if let url = info[NSURLErrorFailingURLErrorKey] as? URL { return " at \(url.absoluteString)" }
        if let text = info["NSErrorFailingURLStringKey"] as? String { return " at \(text)" }
        return ""
    }

    /// The error's own sentence, or its description when it has none.
    private static func text(of error: any Error) -> String {
        if let error = error as? CRUDError { return error.description }
        return error.localizedDescription
    }

    /// The first ``quotedBodyLength`` bytes of the body as text, cut after its secrets are hidden so that no part
    /// of one is left at the cut.
    private static func quotedBody(of response: HTTPResponse, credentials: SentCredentials) -> String {
        guard !response.body.isEmpty else { return "" }
        return quote(
            response.body.prefix(redactedBodyLength), isCut: response.body.count > redactedBodyLength,
            credentials: credentials)
    }

    /// `body`, the first bytes of a document, as a description quotes it: redacted first, then cut to
    /// ``quotedBodyLength`` bytes (at a character's end), so that a secret across the cut is hidden whole.
    ///
    /// When `body` is itself cut from a longer document (`isCut`), a secret may straddle its end, where no rule can
    /// recognise it; the quote then stops short of the last bytes of the redacted text (at least 256, and at least
    /// the longest credential the request sent), which only matters when redaction removed nearly all of `body`.
    package static func quote(_ body: some Collection<UInt8>, isCut: Bool, credentials: SentCredentials) -> String {
        guard !body.isEmpty else { return "" }
        let redacted = credentials.redact(String(decoding: body, as: UTF8.self))
        var limit = quotedBodyLength
        if isCut {
            let margin = max(256, credentials.values.first?.utf8.count ?? 0)
            limit = min(limit, max(0, redacted.utf8.count - margin))
        }
        var end = redacted.startIndex
        var count = 0
        for index in redacted.indices {
            let next = redacted.index(after: index)
            count += redacted.utf8.distance(from: index, to: next)
            if count > limit { break }
            end = next
        }
        return String(redacted[..<end])
    }
}
