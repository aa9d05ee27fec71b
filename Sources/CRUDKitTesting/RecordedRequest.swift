import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import Foundation

/// A request a test double received, with accessors for what tests usually check.
///
/// ```swift
/// let sent = try #require(recorder.last)
/// #expect(sent.method == .post)
/// #expect(sent.path == "/people")
/// #expect(sent.json["first_name"] == "Ada")
/// #expect(sent.header("Idempotency-Key") != nil)
/// ```
public struct RecordedRequest: Sendable {
    /// The request exactly as the transport received it.
    public let request: HTTPRequest
    /// Its position in the recorder, from 0.
    public let index: Int
    let target: RequestTarget

    /// Wraps `request` as the `index`-th recorded request.
    public init(_ request: HTTPRequest, index: Int) {
        self.request = request
        self.index = index
        target = RequestTarget(request.url)
    }

    /// The request method.
    public var method: HTTPMethod { request.method }

    /// The URL path as sent (percent-encoded), such as `/people/12/`.
    public var path: String {
        URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? request.url.path
    }

    /// The path segments, percent-decoded: `/people/a%2Fb/` gives `["people", "a/b"]`.
    public var pathSegments: [String] { target.segments }

    /// The query parameters, decoded, in the order sent.
    public var queryItems: [(name: String, value: String)] { target.query }

    /// The query parameters as a dictionary (the first value wins when a name repeats).
    public var query: [String: String] {
        var result: [String: String] = [:]
        for item in target.query where result[item.name] == nil { result[item.name] = item.value }
        return result
    }

    /// Every value of the query parameter `name`, in order.
    ///
    /// - Parameter name: The parameter name, exact.
    /// - Returns: The decoded values; empty when it was not sent.
    public func queryValues(_ name: String) -> [String] {
        target.query.filter { $0.name == name }.map(\.value)
    }

    /// The header fields sent.
    public var headers: HTTPHeaders { request.headers }

    /// The value of the header `name` (ignoring case), or `nil`.
    ///
    /// - Parameter name: The field name.
    /// - Returns: The first value sent under that name.
    public func header(_ name: String) -> String? { request.headers[name] }

    /// The body bytes (read from disk for a file body; empty when there was none).
    public var body: Data {
        switch request.body {
        case .none: Data()
        case .data(let data): data
        case .file(let url): (try? Data(contentsOf: url)) ?? Data()
        }
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON; ``JSON/null`` when it is empty or not JSON (use ``decodedJSON()`` to see why).
    public var json: JSON { (try? decodedJSON()) ?? .null }

    /// The body parsed as JSON.
    ///
    /// - Returns: The parsed body.
    /// - Throws: ``JSONError`` when the body is not JSON.
    public func decodedJSON() throws -> JSON { try JSON(data: body) }

    /// The body decoded as `type` with `coding`, as the server would read it.
    ///
    /// - Parameters:
    ///   - type: The `Decodable` type.
    ///   - coding: Key and date conventions (snake_case keys by default).
    /// - Returns: The decoded value.
    /// - Throws: A `DecodingError` or ``JSONError``.
    public func decode<T: Decodable>(_ type: T.Type, coding: JSONCoding = .default) throws -> T {
        try coding.decode(type, from: body)
    }

    /// The form fields of an `application/x-www-form-urlencoded` body, decoded, in order.
    public var formFields: [(name: String, value: String)] { FormParameters.decodePairs(text) }

    /// Whether the request has `method` (when given) and a path matching `pattern`.
    ///
    /// Patterns are those of ``StubTransport``: `:name` or `{name}` for one segment, `*` for any one segment,
    /// `**` for any number; a leading `/` anchors the pattern to the whole path, otherwise it matches the last
    /// segments. A trailing slash is ignored.
    /// - Parameters:
    ///   - method: The method to require, or `nil` for any.
    ///   - pattern: The path pattern.
    /// - Returns: Whether both match.
    public func matches(_ method: HTTPMethod? = nil, _ pattern: String) -> Bool {
        if let method, method != request.method { return false }
        return PathPattern(pattern).match(target.segments) != nil
    }
}

extension RecordedRequest: CustomStringConvertible {
    /// `METHOD /path?query`, for failure messages.
    public var description: String {
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery
        return "\(request.method) \(path)" + (query.map { "?\($0)" } ?? "")
    }
}
