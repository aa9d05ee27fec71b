import Foundation

extension HTTPRequest: CustomStringConvertible {
    /// The method, the URL and the headers, secrets hidden by the standard ``Redaction``, and the body's size:
    /// `POST https://api.example.com/v1/people?token=REDACTED [Authorization: REDACTED], 42 B`.
    ///
    /// For the request as a command line, see `cURLDescription(redacting:)`.
    public var description: String {
        let credentials = SentCredentials(of: self, redaction: Redaction(headers: sensitiveHeaderNames))
        let fields = credentials.redaction.redact(headers).map { "\($0.name): \(credentials.redact($0.value))" }
        let size: String
        switch body {
        case .none: size = "no body"
        case .data(let data): size = "\(data.count) B"
        case .file(let file): size = "the file \(file.path)"
        }
        let shownURL = credentials.redact(url.absoluteString)
        return "\(method.rawValue) \(shownURL) [\(fields.joined(separator: "; "))], \(size)"
    }
}
