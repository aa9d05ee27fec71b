import CRUDKit
import Foundation

/// Every request a test double received, in order, for tests that check what the code under test sent.
///
/// ``StubTransport`` and ``InMemoryBackend`` each own one (their `recorder`); it can also wrap any transport
/// with ``RecordingTransport``.
///
/// ```swift
/// let backend = InMemoryBackend()
/// // … run the code under test …
/// #expect(backend.recorder.count(.post, "people") == 1)
/// #expect(backend.recorder.last?.json["last_name"] == "Lovelace")
/// ```
public final class RequestRecorder: Sendable {
    private let state = Locked<[RecordedRequest]>([])

    /// Creates an empty recorder.
    public init() {}

    /// Records `request` and returns it as recorded.
    ///
    /// - Parameter request: The request received.
    /// - Returns: The recorded request with its index.
    @discardableResult
    public func record(_ request: HTTPRequest) -> RecordedRequest {
        state.withLock { requests in
            let recorded = RecordedRequest(request, index: requests.count)
            requests.append(recorded)
            return recorded
        }
    }

    /// Every request recorded so far, in the order received.
    public var requests: [RecordedRequest] { state.withLock { $0 } }

    /// How many requests were recorded.
    public var count: Int { state.withLock { $0.count } }

    /// The first request recorded.
    public var first: RecordedRequest? { state.withLock { $0.first } }

    /// The most recent request.
    public var last: RecordedRequest? { state.withLock { $0.last } }

    /// The requests with `method` (when given) whose path matches `pattern` (see ``RecordedRequest/matches(_:_:)``).
    ///
    /// - Parameters:
    ///   - method: The method, or `nil` for any.
    ///   - pattern: A path pattern such as `people/:id`.
    /// - Returns: The matching requests, in order.
    public func requests(_ method: HTTPMethod? = nil, _ pattern: String) -> [RecordedRequest] {
        requests.filter { $0.matches(method, pattern) }
    }

    /// How many requests have `method` (when given) and a path matching `pattern`.
    ///
    /// - Parameters:
    ///   - method: The method, or `nil` for any.
    ///   - pattern: A path pattern such as `people/:id`.
    /// - Returns: The number of matching requests.
    public func count(_ method: HTTPMethod? = nil, _ pattern: String) -> Int {
        requests(method, pattern).count
    }

    /// The methods and paths recorded, as `METHOD /path?query` lines: handy in `#expect(… == [...])`.
    public var summary: [String] { requests.map(\.description) }

    /// Forgets every request recorded so far.
    public func removeAll() { state.withLock { $0.removeAll() } }
}
