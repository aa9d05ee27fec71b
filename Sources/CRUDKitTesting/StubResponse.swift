import CRUDKit
import Foundation

/// A canned answer for ``StubTransport``: a status, headers and a body, or a failure to throw.
///
/// ```swift
/// stubs.on(.get, "people/:id", .json(["id": 1, "first_name": "Ada"]))
/// stubs.on(.delete, "people/:id", .status(204))
/// stubs.on(.get, "flaky", .failure(.transport(underlying: URLError(.networkConnectionLost))))
/// ```
public struct StubResponse: Sendable {
    enum Outcome: Sendable {
        case response(HTTPResponse)
        case failure(CRUDError)
    }

    let outcome: Outcome

    /// Answers `response` as it is (its `url` is set to the request's).
    ///
    /// - Parameter response: The response.
    public init(_ response: HTTPResponse) { outcome = .response(response) }

    private init(failure: CRUDError) { outcome = .failure(failure) }

    /// A response with `status`, `headers` and raw `body` bytes.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The header fields.
    ///   - body: The body bytes.
    /// - Returns: The stub response.
    public static func data(_ body: Data, status: Int = 200, headers: HTTPHeaders = [:]) -> StubResponse {
        StubResponse(HTTPResponse(status: status, headers: headers, body: body))
    }

    /// A JSON body (`Content-Type: application/json`) with `status`.
    ///
    /// - Parameters:
    ///   - json: The body.
    ///   - status: The status code (200 by default).
    ///   - headers: More header fields.
    /// - Returns: The stub response.
    public static func json(_ json: JSON, status: Int = 200, headers: HTTPHeaders = [:]) -> StubResponse {
        var fields: HTTPHeaders = ["Content-Type": "application/json"]
        fields = fields.merging(headers)
        return data((try? json.data()) ?? Data(), status: status, headers: fields)
    }

    /// A JSON body given as text and sent byte for byte (`Content-Type: application/json`), with `status`: for a
    /// body copied from a real server, one whose exact bytes a test checks, or a deliberately malformed one.
    ///
    /// ```swift
    /// stubs.on(.get, "people/:id", .json(text: #"{"id": 12, "first_name": "Ada"}"#))
    /// stubs.on(.get, "broken", .json(text: "<html>"))   // not JSON: the client reports a decoding error
    /// ```
    /// - Parameters:
    ///   - text: The body, as UTF-8.
    ///   - status: The status code (200 by default).
    ///   - headers: More header fields.
    /// - Returns: The stub response.
    public static func json(text: String, status: Int = 200, headers: HTTPHeaders = [:]) -> StubResponse {
        let fields = HTTPHeaders(["Content-Type": "application/json"]).merging(headers)
        return data(Data(text.utf8), status: status, headers: fields)
    }

    /// A text body (`Content-Type: text/plain; charset=utf-8`) with `status`.
    ///
    /// - Parameters:
    ///   - text: The body.
    ///   - status: The status code (200 by default).
    ///   - headers: More header fields.
    /// - Returns: The stub response.
    public static func text(_ text: String, status: Int = 200, headers: HTTPHeaders = [:]) -> StubResponse {
        let fields = HTTPHeaders(["Content-Type": "text/plain; charset=utf-8"]).merging(headers)
        return data(Data(text.utf8), status: status, headers: fields)
    }

    /// A response with `status`, `headers` and no body (such as 204).
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The header fields.
    /// - Returns: The stub response.
    public static func status(_ status: Int, headers: HTTPHeaders = [:]) -> StubResponse {
        StubResponse(HTTPResponse(status: status, headers: headers))
    }

    /// Throws `error` instead of answering, as a transport does when the network fails.
    ///
    /// - Parameter error: The error to throw, usually `CRUDError/transport(underlying:)` or
    ///   ``CRUDError/timedOut(_:)``.
    /// - Returns: The stub response.
    public static func failure(_ error: CRUDError) -> StubResponse { StubResponse(failure: error) }
}
