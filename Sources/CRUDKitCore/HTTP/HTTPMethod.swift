/// An HTTP request method such as `GET` or `PATCH`.
///
/// The common methods are static members; any other token can be written as a string literal.
///
/// ```swift
/// let method: HTTPMethod = .patch
/// let custom: HTTPMethod = "PURGE"
/// ```
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The method token as sent on the request line, upper-cased.
    public let rawValue: String

    /// Creates a method from its token; the token is upper-cased.
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }

    /// Creates a method from a string literal such as `"GET"`.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// `GET`: read a resource.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD`: read a resource's headers only.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `POST`: create a resource or run an action.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`: replace a resource.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`: change part of a resource.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`: remove a resource.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `OPTIONS`: ask what a resource supports.
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    /// Whether sending the request twice has the same effect as sending it once (RFC 9110 §9.2.2).
    ///
    /// Retry policies only repeat idempotent requests unless the request carries an `Idempotency-Key`.
    public var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": true
        default: false
        }
    }

    /// The method token.
    public var description: String { rawValue }
}
