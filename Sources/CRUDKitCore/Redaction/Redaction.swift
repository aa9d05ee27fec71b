import Foundation

/// What logs, error descriptions and `curl` renderings never show in clear.
///
/// Hidden by default: the `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` headers, the user
/// info of a URL (its password, or a user name standing alone, which is often a token), and the value of every
/// header, query parameter, form field and JSON key whose name names a secret (see ``secretNames``). Add
/// your own secrets by name (compared ignoring case).
///
/// ```swift
/// let redaction = Redaction(headers: ["X-Signature"], queryParameters: ["sessionKey"])
/// ```
public struct Redaction: Sendable, Hashable {
    /// What a hidden value is replaced by.
    package static let placeholder = "REDACTED"

    /// The words that mark a name as naming a secret, with `-` and `_` removed and lower-cased.
    ///
    /// A header, query parameter, form field or JSON key names a secret when its name, lower-cased with `-` and
    /// `_` removed, equals one of these words or ends with one. So `token` hides `token`, `access_token`,
    /// `refresh_token`, `id_token`, `X-Auth-Token` and `refreshToken`; `secret` hides `client_secret`;
    /// `key` hides `api_key`, `X-API-Key`, `Ocp-Apim-Subscription-Key`, `X-Functions-Key`, Cloudflare's `X-Auth-Key`
    /// and Google's `?key=`; `sig` hides an Azure SAS `?sig=`; `password` hides `password` and `new_password`.
    /// Two names ending in `key` carry no secret and stay visible: `Idempotency-Key` and `public_key`.
    ///
    /// ``Redaction/standard``'s ``secretNames``; extend them for your API:
    /// `Redaction(secretNames: Redaction.standard.secretNames.union(["pin"]))`.
    @usableFromInline package static let defaultSecretNames: Set<String> = [
        "password", "passwd", "pwd", "passphrase", "secret", "token", "apikey", "accesskey", "privatekey",
        "authorization", "auth", "credential", "credentials", "cookie", "session", "sessionid", "signature", "key",
        "sig",
    ]

    /// Names ending in a secret word that carry none (normalized): an idempotency key, a public key.
    private static let publicNames: Set<String> = ["idempotencykey", "publickey"]

    /// The header names whose values are hidden, lower-cased, besides those whose name names a secret.
    public let headerNames: Set<String>
    /// The query parameter names whose values are hidden, lower-cased, besides those whose name names a secret.
    public let queryParameterNames: Set<String>
    /// The words that mark a header, query parameter, form field or JSON key as secret, lower-cased with `-` and
    /// `_` removed. A name names a secret when, lower-cased with `-` and `_` removed, it equals one of these words
    /// or ends with one. The standard words (``Redaction/standard``'s) are `password`, `passwd`, `pwd`,
    /// `passphrase`, `secret`, `token`, `apikey`, `accesskey`, `privatekey`, `authorization`, `auth`,
    /// `credential(s)`, `cookie`, `session`, `sessionid`, `signature`, `key` and `sig`: so `token` hides
    /// `access_token`, `X-Auth-Token` and `refreshToken`, `key` hides `api_key`, `X-API-Key` and Google's `?key=`,
    /// `sig` an Azure SAS `?sig=`. Two names ending in `key` carry no secret and stay visible: `Idempotency-Key`
    /// and `public_key`. Extend them: `Redaction(secretNames: Redaction.standard.secretNames.union(["pin"]))`.
    public let secretNames: Set<String>
    /// Whether ``secretNames`` has words beyond the standard ones (the ones a redirect cannot know of).
    package let addsSecretNames: Bool

    /// Hides the standard headers, names that name a secret, and the given secrets.
    /// - Parameters:
    ///   - headers: Header names to hide besides `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`.
    ///   - queryParameters: Query parameter (and form field) names whose values are hidden.
    ///   - secretNames: The words that mark any name as secret; the standard words unless given.
    public init(
        headers: Set<String> = [], queryParameters: Set<String> = [],
        secretNames: Set<String> = Redaction.defaultSecretNames
    ) {
        headerNames = Set(
            (headers.union(["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"])).map {
                $0.lowercased()
            })
        queryParameterNames = Set(queryParameters.map { $0.lowercased() })
        self.secretNames = Set(secretNames.map(Self.normalized).filter { !$0.isEmpty })
        addsSecretNames = !self.secretNames.isSubset(of: Self.defaultSecretNames)
    }

    /// The standard headers and secret words.
    public static let standard = Redaction()

    /// Whether `name` (a header, query parameter, form field or JSON key) names a secret: lower-cased with `-`
    /// and `_` removed, it equals or ends with one of ``secretNames`` (an `Idempotency-Key` or a `public_key`
    /// excepted, unless named in ``secretNames`` itself).
    package func namesSecret(_ name: String) -> Bool {
        let word = Self.normalized(name)
        guard !word.isEmpty else { return false }
        if secretNames.contains(word) { return true }
        if Self.publicNames.contains(where: { word.hasSuffix($0) }) { return false }
        return secretNames.contains { word.hasSuffix($0) }
    }

    /// Whether the value of header `name` is hidden: a listed header, or one whose name names a secret.
    package func hidesHeader(_ name: String) -> Bool {
        headerNames.contains(name.lowercased()) || namesSecret(name)
    }

    /// Whether the value of query parameter `name` is hidden: a listed name or one that names a secret, or a list
    /// or nested field written in the bracket style (`token[]`, `token[0]`, `token[inner]`) of such a name.
    package func hidesQueryParameter(_ name: String) -> Bool {
        var lowered = name.lowercased()
        if let bracket = lowered.firstIndex(of: "[") { lowered = String(lowered[..<bracket]) }
        return queryParameterNames.contains(lowered) || namesSecret(lowered)
    }

    /// `headers` with every secret value replaced by `placeholder`, and secrets inside the other values (a
    /// `token=…` in a `Link` or `Content-Location` URL, a password in a URL) hidden as in text.
    public func redact(_ headers: HTTPHeaders) -> HTTPHeaders {
        redact(headers, alsoHiding: [])
    }

    /// `headers` redacted as by ``redact(_:)``, also hiding the values of the (lower-cased) names in `sensitive`:
    /// a request's `sensitiveHeaderNames`.
    package func redact(_ headers: HTTPHeaders, alsoHiding sensitive: Set<String>) -> HTTPHeaders {
        var result = HTTPHeaders()
        for field in headers {
            let hidden = hidesHeader(field.name) || (!sensitive.isEmpty && sensitive.contains(field.name.lowercased()))
            result.add(name: field.name, value: hidden ? Self.placeholder : redact(text: field.value))
        }
        return result
    }

    /// The text of `url` with secret query values and its user info's secret replaced by `placeholder`.
    public func redact(_ url: URL) -> String {
        redact(urlText: url.absoluteString)
    }

    /// `text`, a URL, with secret query values and its user info's secret replaced by `placeholder`.
    func redact(urlText text: String) -> String {
        let text = Self.hidingUserInfo(text)
        guard let question = text.firstIndex(of: "?") else { return text }
        var end = text.endIndex
        if let hash = text[question...].firstIndex(of: "#") { end = hash }
        let query = text[text.index(after: question)..<end]
        let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { part -> String in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = String(pieces[0])
            let name = (rawName.removingPercentEncoding ?? rawName).lowercased()
            guard pieces.count == 2, hidesQueryParameter(name) else { return String(part) }
            return rawName + "=" + Self.placeholder
        }
        return String(text[...question]) + parts.joined(separator: "&") + String(text[end...])
    }

    /// `text` with the secret of its user info replaced by `placeholder`: the password of `user:secret@host`,
    /// or the whole of `secret@host` (a user name standing alone is often a token).
    static func hidingUserInfo(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let authorityEnd =
            text[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        let authority = text[scheme.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return text }
        if let colon = authority[..<at].firstIndex(of: ":") {
            return String(text[..<authority.index(after: colon)]) + placeholder + String(text[at...])
        }
        guard authority.startIndex < at else { return text }
        return String(text[..<authority.startIndex]) + placeholder + String(text[at...])
    }

    /// `name` lower-cased without `-` and `_`, the form ``secretNames`` are compared in.
    static func normalized(_ name: String) -> String {
        String(String.UnicodeScalarView(name.lowercased().unicodeScalars.filter { $0 != "-" && $0 != "_" }))
    }
}
