import Foundation

/// What a response keeps of the request it answers so that its descriptions can hide the credentials that request
/// sent: the API's ``Redaction`` and the secret values themselves.
///
/// It takes no part in equality or hashing, and shows nothing when mirrored or printed.
package struct SentCredentials: Sendable, Hashable, CustomReflectable, CustomStringConvertible {
    /// The rules of the API that sent the request.
    package var redaction: Redaction
    /// The headers the request sent.
    private var headers: HTTPHeaders
    /// The URL the request was sent to.
    private var url: URL?
    /// The names of the request's headers it marks as sensitive, lower-cased.
    private var sensitiveHeaderNames: Set<String>

    /// No credentials, the standard rules.
    package static let none = SentCredentials(redaction: .standard)

    /// No credentials, the rules of `redaction`.
    package init(redaction: Redaction) {
        self.redaction = redaction
        headers = [:]
        url = nil
        sensitiveHeaderNames = []
    }

    /// The credentials `request` sends, by the rules of `redaction`. Keeping them costs copies of the headers and
    /// URL (shared storage); the values are only looked for when a description is made.
    package init(of request: HTTPRequest, redaction: Redaction) {
        self.redaction = redaction
        headers = request.headers
        url = request.url
        sensitiveHeaderNames = request.sensitiveHeaderNames
    }

    /// The credentials the request sent, longest first: the values of the headers the redaction hides or the
    /// request marks as sensitive (and the credential after an auth scheme, the password of Basic credentials,
    /// each cookie value), the secret of the URL's user info and the values of secret query parameters; only
    /// those of at least `Redaction.minimumHiddenValueLength` (6) characters.
    package var values: [String] {
        var values: Set<String> = []
        for field in headers
        where redaction.hidesHeader(field.name) || sensitiveHeaderNames.contains(field.name.lowercased()) {
            values.formUnion(Self.secrets(inHeaderValue: field.value))
        }
        if let url {
            if let password = url.password {
                values.insert(password)
            } else if let user = url.user {
                values.insert(user)  // a user name standing alone is often a token
            }
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            for item in components?.queryItems ?? [] where redaction.hidesQueryParameter(item.name) {
                if let value = item.value { values.insert(value) }
            }
        }
        return values.filter { $0.utf8.count >= Redaction.minimumHiddenValueLength }.sorted {
            $0.utf8.count > $1.utf8.count
        }
    }

    /// The whole value, the credential after an auth scheme (and a Basic credential's password), and each
    /// `name=value` pair's value.
    private static func secrets(inHeaderValue value: String) -> [String] {
        var found = [value]
        let words = value.split(separator: " ", maxSplits: 1)
        if words.count == 2 {
            let credential = words[1].trimmingCharacters(in: .whitespaces)
            found.append(credential)
            if words[0].lowercased() == "basic", let data = Data(base64Encoded: credential) {
                let decoded = String(decoding: data, as: UTF8.self)
                found.append(decoded)
                if let colon = decoded.firstIndex(of: ":") {
                    found.append(String(decoded[decoded.index(after: colon)...]))
                }
            }
        }
        for pair in value.split(separator: ";") {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            found.append(pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces))
        }
        return found
    }

    /// Whether these are the credentials of a request (not ``none`` or the rules alone).
    package var knowsRequest: Bool { !headers.isEmpty || url != nil }

    /// Always equal: the credentials are not part of a response's value.
    package static func == (lhs: SentCredentials, rhs: SentCredentials) -> Bool { true }

    /// Hashes nothing, consistently with `==`.
    package func hash(into hasher: inout Hasher) {}

    /// No children: a dump never shows the values.
    package var customMirror: Mirror { Mirror(self, children: [:]) }

    /// Never the values.
    package var description: String { "SentCredentials(hidden)" }
}

extension SentCredentials {
    /// `text` with these credentials and every pattern of ``Redaction/redact(text:hiding:)`` hidden.
    package func redact(_ text: String) -> String {
        redaction.redact(text: text, hiding: knowsRequest ? values : [])
    }
}
