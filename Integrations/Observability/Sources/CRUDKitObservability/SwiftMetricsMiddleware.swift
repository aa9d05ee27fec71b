import CRUDKit
import CoreMetrics

/// Measures CRUDKit's requests with swift-metrics, named and labelled after OpenTelemetry's HTTP client semantic
/// conventions.
///
/// Two stages of one type. ``Stage-swift.enum/request``, outside the retry stage, measures each logical request:
///
/// | metric | kind | labels |
/// |---|---|---|
/// | `http.client.request.duration` | `Timer` (seconds) | `http.request.method`, `server.address`, `server.port`, `url.template`¹, `http.response.status_code`², `error.type`² |
/// | `http.client.active_requests` | `Meter` (in flight) | `http.request.method`, `server.address`, `server.port`, `url.template`¹ |
/// | `http.client.response.body.size` | `Recorder` (bytes) | as the duration, without `error.type` unless set |
///
/// ¹ when known (`MiddlewareContext.urlTemplate`, such as `/v1/people/{id}`); ² when there is one.
/// ``Stage-swift.enum/attempt``, inside the retry stage, counts `crudkit.http.client.retries` (labels method,
/// server, port, and `error.type` of the failure retried). No label carries an id, a query, a credential, a
/// method outside the standard ones or a status outside 100–599 (those are `_OTHER`), so the number of series stays
/// bounded. The body size of a download (whose body went to a file) is the `Content-Length` the server declared.
///
/// ```swift
/// let api = API(baseURL: base).with { $0.middleware.insertObservability() }
/// ```
public struct SwiftMetricsMiddleware: Middleware {
    /// Where in the chain a ``SwiftMetricsMiddleware`` runs.
    public enum Stage: Sendable, Hashable {
        /// Outside the retry stage: duration, in-flight count and body size of each logical request.
        case request
        /// Inside the retry stage: the retries.
        case attempt
    }

    /// The label of the request duration timer.
    public static let durationLabel = "http.client.request.duration"
    /// The label of the in-flight requests meter.
    public static let activeRequestsLabel = "http.client.active_requests"
    /// The label of the response body size recorder.
    public static let responseBodySizeLabel = "http.client.response.body.size"
    /// The label of the retries counter.
    public static let retriesLabel = "crudkit.http.client.retries"

    /// Which stage this is.
    public var stage: Stage
    /// The metrics backend; `nil` uses the bootstrapped `MetricsSystem.factory`, read at each request.
    public var factory: (any MetricsFactory)?

    /// Creates a stage.
    /// - Parameters:
    ///   - stage: ``Stage-swift.enum/request`` (outside the retry stage) or ``Stage-swift.enum/attempt`` (inside).
    ///   - factory: The metrics backend; `nil` uses the bootstrapped one.
    public init(_ stage: Stage = .request, factory: (any MetricsFactory)? = nil) {
        self.stage = stage
        self.factory = factory
    }

    /// `metrics` for the request stage, `metrics.attempt` for the attempt stage.
    public var name: MiddlewareName { stage == .request ? .metrics : .metricsAttempt }

    /// Whether the stage has nothing to do: the metrics backend is swift-metrics' no-op one, or (the attempt stage)
    /// this is a first attempt.
    public func passesThrough(_ request: HTTPRequest, context: MiddlewareContext) -> Bool {
        if stage == .attempt, context.attempt <= 1 { return true }
        return NoOpBackends.isNoOp(factory ?? MetricsSystem.factory)
    }

    /// Measures the request (or counts the retry) around sending it on through `next`.
    public func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        let factory = self.factory ?? MetricsSystem.factory
        if NoOpBackends.isNoOp(factory) { return try await next(request, context) }
        var dimensions = [
            (HTTPClientSemantics.method, HTTPClientSemantics.method(request)),
            (HTTPClientSemantics.serverAddress, HTTPClientSemantics.serverAddress(request.url)),
            (HTTPClientSemantics.serverPort, String(HTTPClientSemantics.serverPort(request.url))),
        ]
        switch stage {
        case .attempt:
            if context.attempt > 1 {
                let type = context.previousFailures.last.flatMap {
                    HTTPClientSemantics.errorType(status: nil, failure: $0)
                }
                dimensions.append((HTTPClientSemantics.errorType, type ?? "_OTHER"))
                Counter(label: Self.retriesLabel, dimensions: dimensions, factory: factory).increment()
            }
            return try await next(request, context)
        case .request:
            if let template = context.urlTemplate { dimensions.append((HTTPClientSemantics.urlTemplate, template)) }
            return try await measure(request, context, next, factory, dimensions)
        }
    }

    private func measure(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareNext, _ factory: any MetricsFactory,
        _ dimensions: [(String, String)]
    ) async throws -> HTTPResponse {
        let clock = context.api.configuration.clock
        let active = Meter(label: Self.activeRequestsLabel, dimensions: dimensions, factory: factory)
        active.increment()
        defer { active.decrement() }
        let started = clock.now()
        var dimensions = dimensions
        let response: HTTPResponse
        do {
            response = try await next(request, context)
        } catch {
            let elapsed = clock.now() - started
            let answer = (error as? CRUDError)?.response
            if let answer {
                dimensions.append((HTTPClientSemantics.status, HTTPClientSemantics.statusLabel(answer.status)))
            }
            dimensions.append((HTTPClientSemantics.errorType, HTTPClientSemantics.errorType(error)))
            Self.record(
                elapsed, answer.map { HTTPClientSemantics.responseBodySize($0, for: request) }, dimensions, factory)
            throw error
        }
        dimensions.append((HTTPClientSemantics.status, HTTPClientSemantics.statusLabel(response.status)))
        if let type = HTTPClientSemantics.errorType(status: response.status, failure: nil) {
            dimensions.append((HTTPClientSemantics.errorType, type))
        }
        Self.record(
            clock.now() - started, HTTPClientSemantics.responseBodySize(response, for: request), dimensions, factory)
        return response
    }

    private static func record(
        _ elapsed: Duration, _ bodySize: Int?, _ dimensions: [(String, String)], _ factory: any MetricsFactory
    ) {
        let (seconds, attoseconds) = elapsed.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let total = nanoseconds.overflow ? Int64.max : nanoseconds.partialValue &+ attoseconds / 1_000_000_000
        CoreMetrics.Timer(
            label: durationLabel, dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory
        )
        .recordNanoseconds(max(0, total))
        if let bodySize {
            Recorder(label: responseBodySizeLabel, dimensions: dimensions, factory: factory).record(bodySize)
        }
    }
}

extension MiddlewareName {
    /// The name of ``SwiftMetricsMiddleware``'s request stage.
    public static let metrics = MiddlewareName("metrics")
    /// The name of ``SwiftMetricsMiddleware``'s attempt stage.
    public static let metricsAttempt = MiddlewareName("metrics.attempt")
}
