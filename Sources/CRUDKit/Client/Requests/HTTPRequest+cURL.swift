import Foundation

extension HTTPRequest {
    /// The request as a `curl` command line, with secrets hidden: secret headers (and those in
    /// ``HTTPRequest/sensitiveHeaderNames``), the URL's user info secret and secret query values, and in a text body
    /// the values of secret form fields and JSON keys and any credential the headers carry (see
    /// ``Redaction/redact(text:hiding:)``).
    ///
    /// ```swift
    /// print(request.cURLDescription())
    /// // curl -X POST 'https://api.example.com/v1/people' \
    /// //   -H 'Authorization: REDACTED' \
    /// //   -H 'Content-Type: application/json' \
    /// //   --data-binary '{"firstName":"Ada"}'
    /// ```
    /// - Parameter redaction: What to hide; the standard headers and secret words unless
    ///   replaced are always hidden.
    /// - Returns: A command that can be pasted into a POSIX shell.
    public func cURLDescription(redacting redaction: Redaction = .standard) -> String {
        let credentials = SentCredentials(of: self, redaction: redaction)
        var first = "curl"
        if method == .head {
            first += " --head"
        } else if method != .get || !body.isEmpty {
            first += " -X " + method.rawValue
        }
        var parts = [first + " " + Self.shellQuoted(redaction.redact(url))]
        for field in redaction.redact(headers, alsoHiding: sensitiveHeaderNames) {
            parts.append("-H " + Self.shellQuoted("\(field.name): \(field.value)"))
        }
        switch body {
        case .none:
            break
        case .data(let data):
            if let text = String(data: data, encoding: .utf8), !text.contains("\0") {
                parts.append("--data-binary " + Self.shellQuoted(credentials.redact(text)))
            } else {
                parts.append("--data-binary @- # \(data.count) bytes of binary data")
            }
        case .file(let file):
            parts.append("--data-binary " + Self.shellQuoted("@" + file.path))
        }
        return parts.joined(separator: " \\\n  ")
    }

    /// `text` in single quotes, with each `'` written as `'\''`.
    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingScalars(["'": "'\\''"]) + "'"
    }
}
