import CRUDKit
import CRUDKitObservability
import CRUDKitTesting
import CoreMetrics
import Foundation
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Tracing

/// The model the tests read.
struct Person: CRUDModel, Codable, Hashable {
    static let path = "people"
    var id: Int?
    var name: String
}

/// Secrets planted in requests: none may reach a log line, a metric label or a span.
enum Planted {
    static let token = "tok-3f9a2c71e8"
    static let apiKey = "key-b84d1e0a77"
    static let password = "pw-hunter2-55"
    static let all = [token, apiKey, password]
}

/// The three in-memory backends a test attaches, and everything they recorded as text.
struct Recorders {
    let logs = InMemoryLogHandler()
    let metrics = TestMetrics()
    let tracer = InMemoryTracer()

    /// A logger writing into ``logs`` at `.trace`.
    var logger: Logger {
        var logger = Logger(label: "crudkit-test") { _ in logs }
        logger.logLevel = .trace
        return logger
    }

    /// `api` with logging, metrics and tracing into these recorders.
    func observing(_ api: API) -> API {
        api.with { $0.middleware.insertObservability(logger: logger, metrics: metrics, tracer: tracer) }
    }

    /// Every log line: level, message and metadata.
    var logLines: [String] {
        logs.entries.map { entry in
            let metadata = entry.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return "\(entry.level) \(entry.message) " + metadata.joined(separator: " ")
        }
    }

    /// Every metric's label and dimensions, one line each.
    var metricLabels: [String] {
        let counters = metrics.counters.map { ($0.label, $0.dimensions) }
        let meters = metrics.meters.map { ($0.label, $0.dimensions) }
        let recorders = metrics.recorders.map { ($0.label, $0.dimensions) }
        let timers = metrics.timers.map { ($0.label, $0.dimensions) }
        return (counters + meters + recorders + timers).map { label, dimensions in
            label + " " + dimensions.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
        }
    }

    /// Every finished span: name, attributes, events (with theirs), errors and status.
    var spanTexts: [String] { tracer.finishedSpans.map(Self.text) }

    static func text(_ span: FinishedInMemorySpan) -> String {
        var parts = [span.operationName, attributesText(span.attributes)]
        for event in span.events { parts.append(event.name + " " + attributesText(event.attributes)) }
        for error in span.errors { parts.append("error: \(error.error) \(String(reflecting: error.error))") }
        parts.append("status: \(String(describing: span.status))")
        return parts.joined(separator: " | ")
    }

    static func attributesText(_ attributes: SpanAttributes) -> String {
        var pairs: [String] = []
        attributes.forEach { key, value in pairs.append("\(key)=\(value)") }
        return pairs.sorted().joined(separator: " ")
    }

    /// Everything recorded, for the secret checks.
    var everything: [String] { logLines + metricLabels + spanTexts }
}

/// A loopback server answering by path: `/v1/people/N` with Ada, `/v1/flaky/...` with 503 then 200, `/v1/moved`
/// with a redirect, `/v1/never` never (after signalling `arrived`), `/v1/reset` by closing, `/v1/missing` with 404.
final class Backend: Sendable {
    let server: LoopbackServer
    let flakyCalls = LockedCounter()
    let arrived: AsyncStream<Void>
    private let arrive: AsyncStream<Void>.Continuation

    init() throws {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        arrived = stream
        arrive = continuation
        let flaky = flakyCalls
        server = LoopbackServer(handler: { request in
            let path = String(request.target.prefix { $0 != "?" })
            let ada = HTTPResponse(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Data(#"{"id": 1234, "name": "Ada"}"#.utf8))
            switch path {
            case "/v1/flaky/1234":
                return flaky.increment() == 1
                    ? .response(HTTPResponse(status: 503, body: Data("busy".utf8))) : .response(ada)
            case "/v1/moved":
                return .response(HTTPResponse(status: 302, headers: ["Location": "/v1/people/1234"]))
            case "/v1/never":
                continuation.yield()
                return .fault(.neverAnswer)
            case "/v1/reset":
                return .fault(.closeBeforeStatusLine)
            case "/v1/missing":
                return .response(HTTPResponse(status: 404, body: Data("{}".utf8)))
            default:
                return .response(ada)
            }
        })
        try server.start()
    }

    deinit { server.stop() }

    /// The API on this server, through a real `URLSessionTransport`, under `/v1`.
    func api(
        user: String? = nil, token: String? = nil, retryPolicy: RetryPolicy = .none, query: [String: String] = [:]
    ) -> API {
        var components = URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false)!
        components.path = "/v1"
        if let user {
            components.user = user
            components.password = Planted.password
        }
        return API(
            baseURL: components.url!, token: token,
            query: FormParameters(query.map { ($0.key, FormValue.string($0.value)) }),
            transport: URLSessionTransport(), middleware: .standard.inserting(RetryMiddleware(policy: retryPolicy)))
    }
}

/// A counter shared with a server's handler thread.
final class LockedCounter: @unchecked Sendable {
    // Safety: `value` is only read and written under `lock`.
    private let lock = NSLock()
    private var value = 0

    /// Adds one and returns the new value.
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }

    /// The count so far.
    var current: Int {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// A retry policy with no wait, so that a retry test takes no time.
let retryAtOnce = RetryPolicy(maxAttempts: 3, initialDelay: .zero, jitter: 0)
