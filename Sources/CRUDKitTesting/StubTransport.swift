import CRUDKit
import Foundation

/// A transport that answers from routes a test declares, and records every request it receives.
///
/// A route is a method (or any method) and a path pattern: literal segments, `:name` or `{name}` to capture one
/// segment, `*` for any one segment and `**` for any number. A pattern that starts with `/` must match the whole
/// path; one without matches the last segments, so `people/:id` matches `https://api.example.com/v1/people/12`.
/// A trailing slash is ignored (check it with ``recorder`` if it matters). The most recently added matching
/// route answers, so a test can override a default it set up earlier.
///
/// A request no route matches answers **404** with a JSON body naming the request
/// (`{"detail": "StubTransport: no route for GET /people/12"}`), so the code under test sees an ordinary HTTP
/// error; pass `unmatched: .fail` to throw ``CRUDError/invalidRequest(reason:)`` instead and make a forgotten
/// stub fail loudly.
///
/// ```swift
/// let stubs = StubTransport()
/// stubs.on(.get, "people/:id", .json(["id": 12, "first_name": "Ada"]))
/// stubs.on(.post, "people") { request in
///     .json(request.json, status: 201)
/// }
/// let response = try await stubs.send(HTTPRequest(url: URL(string: "https://api.example.com/people/12")!))
/// #expect(stubs.recorder.last?.path == "/people/12")
/// ```
public final class StubTransport: Transport {
    /// What happens to a request no route matches.
    public enum Unmatched: Sendable, Hashable {
        /// Answer 404 with a JSON body naming the request.
        case notFound
        /// Throw ``CRUDError/invalidRequest(reason:)`` naming the request.
        case fail
    }

    /// A route's answer: canned responses used in turn, or a closure.
    enum Answer: Sendable {
        case canned([StubResponse])
        case closure(@Sendable (StubRequest) async throws -> StubResponse)
    }

    struct Route: Sendable {
        var method: HTTPMethod?
        var pattern: PathPattern
        var answer: Answer
        var uses = 0
    }

    private let routes = Locked<[Route]>([])
    /// What happens to a request no route matches.
    public let unmatched: Unmatched
    /// Every request received, in order.
    public let recorder: RequestRecorder

    /// Creates a transport with no routes.
    ///
    /// - Parameters:
    ///   - unmatched: What to do with a request no route matches (answer 404 by default).
    ///   - recorder: Where requests are recorded (a new recorder by default).
    public init(unmatched: Unmatched = .notFound, recorder: RequestRecorder = RequestRecorder()) {
        self.unmatched = unmatched
        self.recorder = recorder
    }

    /// Answers requests with `method` (any method when `nil`) whose path matches `pattern` with `response`.
    ///
    /// - Parameters:
    ///   - method: The method, or `nil` for any.
    ///   - pattern: The path pattern, such as `people/:id`.
    ///   - response: The answer, given to every matching request.
    /// - Returns: This transport, so routes can be chained.
    @discardableResult
    public func on(_ method: HTTPMethod?, _ pattern: String, _ response: StubResponse) -> StubTransport {
        add(method, pattern, .canned([response]))
    }

    /// Answers matching requests with `responses` in turn; the last one answers every later request.
    ///
    /// ```swift
    /// stubs.on(.get, "people", sequence: [.status(503), .json([])])   // fail once, then succeed
    /// ```
    /// - Parameters:
    ///   - method: The method, or `nil` for any.
    ///   - pattern: The path pattern.
    ///   - responses: The answers, in order (an empty list answers 404).
    /// - Returns: This transport, so routes can be chained.
    @discardableResult
    public func on(_ method: HTTPMethod?, _ pattern: String, sequence responses: [StubResponse]) -> StubTransport {
        add(method, pattern, .canned(responses))
    }

    /// Answers matching requests with what `handler` returns for each.
    ///
    /// - Parameters:
    ///   - method: The method, or `nil` for any.
    ///   - pattern: The path pattern; its captures are in ``StubRequest/parameters``.
    ///   - handler: Builds the answer; an error it throws is thrown by ``send(_:)`` as `URLSessionTransport`
    ///     reports it: a ``CRUDError`` as is, `URLError.timedOut` as ``CRUDError/timedOut(_:)`` (an idle timeout of
    ///     the request's `timeout`), `URLError.cancelled` and `CancellationError` as ``CRUDError/cancelled``,
    ///     anything else wrapped in `CRUDError/transport(underlying:)`.
    /// - Returns: This transport, so routes can be chained.
    @discardableResult
    public func on(
        _ method: HTTPMethod?,
        _ pattern: String,
        handler: @escaping @Sendable (StubRequest) async throws -> StubResponse
    ) -> StubTransport {
        add(method, pattern, .closure(handler))
    }

    /// Removes every route (the recorded requests stay).
    public func removeAllRoutes() { routes.withLock { $0.removeAll() } }

    private func add(_ method: HTTPMethod?, _ pattern: String, _ answer: Answer) -> StubTransport {
        routes.withLock { $0.append(Route(method: method, pattern: PathPattern(pattern), answer: answer)) }
        return self
    }

    /// Records `request` and answers it from the most recently added matching route.
    ///
    /// - Parameter request: The request.
    /// - Returns: The route's response, with `url` set to the request's URL.
    /// - Throws: The route's failure, ``CRUDError/cancelled`` when the task is cancelled, or
    ///   ``CRUDError/invalidRequest(reason:)`` for an unmatched request when ``unmatched`` is ``Unmatched/fail``.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let recorded = recorder.record(request)
        if Task.isCancelled { throw CRUDError.cancelled }
        let found = routes.withLock { routes -> (Answer, [String: String], Int)? in
            for index in routes.indices.reversed() {
                let route = routes[index]
                if let method = route.method, method != request.method { continue }
                guard let captures = route.pattern.match(recorded.target.segments) else { continue }
                routes[index].uses += 1
                return (route.answer, captures, routes[index].uses)
            }
            return nil
        }
        guard let (answer, captures, use) = found else {
            let message = "StubTransport: no route for \(recorded)"
            if unmatched == .fail { throw CRUDError.invalidRequest(reason: message) }
            return try finish(.json(["detail": .string(message)], status: 404), for: request)
        }
        switch answer {
        case .canned(let responses):
            guard let response = responses.isEmpty ? nil : responses[min(max(use, 1), responses.count) - 1] else {
                let message = "StubTransport: the route has no responses"
                return try finish(.json(["detail": .string(message)], status: 404), for: request)
            }
            return try finish(response, for: request)
        case .closure(let handler):
            let response: StubResponse
            do {
                response = try await handler(StubRequest(recorded: recorded, parameters: captures))
            } catch {
                throw CRUDError.fromTransport(error, timeout: request.timeout)
            }
            return try finish(response, for: request)
        }
    }

    private func finish(_ stub: StubResponse, for request: HTTPRequest) throws -> HTTPResponse {
        switch stub.outcome {
        case .failure(let error): throw error
        case .response(var response):
            response.url = request.url
            return response
        }
    }

}
