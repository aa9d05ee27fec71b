import CRUDKit
import Foundation

/// What a ``StubTransport`` route closure receives: the recorded request and the values its pattern captured.
///
/// ```swift
/// stubs.on(.get, "people/:id") { request in
///     .json(["id": .string(request.parameters["id"] ?? ""), "first_name": "Ada"])
/// }
/// ```
public struct StubRequest: Sendable {
    /// The request, with accessors for its path, query, headers and body.
    public let recorded: RecordedRequest
    /// The path segments captured by `:name` or `{name}` in the route's pattern, percent-decoded.
    public let parameters: [String: String]

    /// Creates the value a route closure receives.
    ///
    /// - Parameters:
    ///   - recorded: The request.
    ///   - parameters: The captured path segments.
    public init(recorded: RecordedRequest, parameters: [String: String]) {
        self.recorded = recorded
        self.parameters = parameters
    }

    /// The request as sent.
    public var request: HTTPRequest { recorded.request }

    /// The body parsed as JSON (``JSON/null`` when empty or not JSON).
    public var json: JSON { recorded.json }
}
