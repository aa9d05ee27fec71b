import CRUDKit
import CoreMetrics
import Logging
import Tracing

extension Array where Element == any Middleware {
    /// Adds logging, metrics and tracing at their places, replacing any added before: the request stages of
    /// ``DistributedTracingMiddleware`` and ``SwiftMetricsMiddleware`` outermost (one span and one duration per
    /// logical request, retries included), their attempt stages and ``SwiftLogMiddleware`` just inside the retry
    /// stage (each attempt; where there is no retry stage, just inside the request stages).
    ///
    /// Call it after placing the retry stage. Each concern with a `nil` argument uses what is bootstrapped
    /// (`Logger.current`, `MetricsSystem.factory`, `InstrumentationSystem.tracer`), read at each request; a no-op
    /// backend costs next to nothing.
    ///
    /// ```swift
    /// let api = API(baseURL: base, middleware: .standard.inserting(RetryMiddleware(policy: .standard))).with {
    ///     $0.middleware.insertObservability(logger: Logger(label: "people-client"))
    /// }
    /// ```
    /// - Parameters:
    ///   - logger: The API's logger (see ``SwiftLogMiddleware/logger``); `nil` uses the task's.
    ///   - metrics: The metrics backend; `nil` uses the bootstrapped one.
    ///   - tracer: The tracer, which also injects the trace context into the headers; `nil` uses the bootstrapped
    ///     one.
    public mutating func insertObservability(
        logger: Logger? = nil, metrics: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil
    ) {
        for name in [MiddlewareName.tracing, .metrics, .tracingAttempt, .metricsAttempt, .swiftLog] {
            removeAll(named: name)
        }
        insert(SwiftMetricsMiddleware(.request, factory: metrics), at: 0)
        insert(DistributedTracingMiddleware(.request, tracer: tracer), at: 0)
        let inside = firstIndex { $0.name == .retry }.map { $0 + 1 } ?? 2
        insert(SwiftLogMiddleware(logger: logger), at: inside)
        insert(SwiftMetricsMiddleware(.attempt, factory: metrics), at: inside)
        var attempt = DistributedTracingMiddleware(.attempt, tracer: tracer)
        attempt.requestStageOutside = true
        insert(attempt, at: inside)
    }
}
