import Foundation

/// The headers and query parameters that logs and `curl` renderings never show in clear.
///
/// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` are always hidden, as is a password in a URL;
/// add your own secrets by name (compared ignoring case).
///
/// ```swift
/// let redaction = Redaction(headers: ["X-API-Key"], queryParameters: ["token", "signature"])
/// ```
public struct Redaction: Sendable, Hashable {
    /// What a hidden value is replaced by.
    public static let placeholder = "REDACTED"

    /// The header names whose values are hidden, lower-cased.
    public let headerNames: Set<String>
    /// The query parameter names whose values are hidden, lower-cased.
    public let queryParameterNames: Set<String>

    /// Hides the standard headers and the given secrets.
    /// - Parameters:
    ///   - headers: Header names to hide besides `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`.
    ///   - queryParameters: Query parameter names whose values are hidden.
    public init(headers: Set<String> = [], queryParameters: Set<String> = []) {
        headerNames = Set(
            (headers.union(["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"])).map {
                $0.lowercased()
            })
        queryParameterNames = Set(queryParameters.map { $0.lowercased() })
    }

    /// The standard headers only.
    public static let standard = Redaction()

    /// Whether the value of header `name` is hidden.
    public func hidesHeader(_ name: String) -> Bool { headerNames.contains(name.lowercased()) }

    /// Whether the value of query parameter `name` is hidden: a listed name, or a list or nested field written in
    /// the bracket style (`token[]`, `token[0]`, `token[inner]`) of a listed name.
    public func hidesQueryParameter(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if queryParameterNames.contains(lowered) { return true }
        guard let bracket = lowered.firstIndex(of: "[") else { return false }
        return queryParameterNames.contains(String(lowered[..<bracket]))
    }

    /// `headers` with every secret value replaced by ``placeholder``.
    public func redact(_ headers: HTTPHeaders) -> HTTPHeaders {
        guard headers.contains(where: { hidesHeader($0.name) }) else { return headers }
        var result = HTTPHeaders()
        for field in headers {
            result.add(name: field.name, value: hidesHeader(field.name) ? Self.placeholder : field.value)
        }
        return result
    }

    /// The text of `url` with secret query values and any password replaced by ``placeholder``.
    public func redact(_ url: URL) -> String {
        let text = Self.hidingPassword(url.absoluteString)
        guard !queryParameterNames.isEmpty, let question = text.firstIndex(of: "?") else { return text }
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

    /// `text` with the password of its user info (`https://user:secret@host`) replaced by ``placeholder``.
    private static func hidingPassword(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let authorityEnd =
            text[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        let authority = text[scheme.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            return text
        }
        return String(text[..<authority.index(after: colon)]) + placeholder + String(text[at...])
    }
}
