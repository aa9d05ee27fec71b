import Foundation

/// What an ``API`` sends in its `Authorization` header: a token in the conventions' scheme, a bearer token, or a
/// user name and password (HTTP Basic, RFC 7617).
///
/// ```swift
/// let api = API(baseURL: url, conventions: .djangoREST, credentials: .basic(user: "ada", password: "s3cret"))
/// ```
///
/// The header is redacted like every credential (in descriptions, logs and errors), and it is only sent to the
/// API's own origin: a redirect to another host goes without it. Its description never shows the secret.
public struct Credentials: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    private enum Kind: Hashable {
        case token(String)
        case bearer(String)
        case basic(user: String, password: String)
    }

    private let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    /// A token sent in the API's ``APIConventions/authorizationScheme`` (`Bearer`, or `Token` for Django REST
    /// framework): what `API(baseURL:token:)` sends.
    /// - Parameter token: The token or key.
    /// - Returns: The credentials.
    public static func token(_ token: String) -> Credentials { Credentials(.token(token)) }

    /// A token sent as `Authorization: Bearer <token>`, whatever the conventions' scheme.
    /// - Parameter token: The token.
    /// - Returns: The credentials.
    public static func bearer(_ token: String) -> Credentials { Credentials(.bearer(token)) }

    /// A user name and password sent as `Authorization: Basic <base64(user:password)>` (RFC 7617, UTF-8).
    /// - Parameters:
    ///   - user: The user name; it must not contain `:` (RFC 7617), which the server could not tell apart.
    ///   - password: The password.
    /// - Returns: The credentials.
    public static func basic(user: String, password: String) -> Credentials {
        Credentials(.basic(user: user, password: password))
    }

    /// The `Authorization` header value under `conventions`.
    /// - Parameter conventions: The API's conventions (their ``APIConventions/authorizationScheme`` for a token).
    /// - Returns: The header value, such as `Basic YWRhOnMzY3JldA==`.
    public func authorization(_ conventions: APIConventions) -> String {
        switch kind {
        case .token(let token): "\(conventions.authorizationScheme) \(token)"
        case .bearer(let token): "Bearer \(token)"
        case .basic(let user, let password): "Basic \(Data("\(user):\(password)".utf8).base64EncodedString())"
        }
    }

    /// The Basic credentials in `url`'s user info, and `url` without them; `nil` when it has none.
    static func userInfo(in url: URL) -> (credentials: Credentials, url: URL)? {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false), let user = parts.user else {
            return nil
        }
        let password = parts.password ?? ""
        parts.user = nil
        parts.password = nil
        guard let bare = parts.url else { return nil }
        return (.basic(user: user, password: password), bare)
    }

    /// A mirror that shows the ``description``, never the secret (`dump(_:)` and debuggers).
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }

    /// The kind of credentials and, for Basic, the user name; never the secret.
    public var description: String {
        switch kind {
        case .token: "Credentials.token(\(Redaction.placeholder))"
        case .bearer: "Credentials.bearer(\(Redaction.placeholder))"
        case .basic(let user, _): "Credentials.basic(user: \(user), password: \(Redaction.placeholder))"
        }
    }
}
