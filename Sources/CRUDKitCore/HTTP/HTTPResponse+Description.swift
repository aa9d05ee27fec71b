import Foundation

extension HTTPResponse: CustomStringConvertible {
    /// The status, the URL and the headers, secrets hidden (see ``Redaction``), and the body's size:
    /// `500 https://api.example.com/v1/people?token=REDACTED [Set-Cookie: REDACTED; Content-Type: text/html], 1234 B`.
    public var description: String {
        let credentials = sentCredentials
        let fields = credentials.redaction.redact(headers).map { "\($0.name): \(credentials.redact($0.value))" }
        var text = "\(status)"
        if let url { text += " " + credentials.redact(url.absoluteString) }
        return text + " [\(fields.joined(separator: "; "))], \(body.count) B"
    }
}
