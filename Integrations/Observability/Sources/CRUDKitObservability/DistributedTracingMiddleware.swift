import CRUDKit
import Instrumentation
import Tracing

/// Traces CRUDKit's requests with swift-distributed-tracing: a client span per logical request, named and
/// attributed after OpenTelemetry's HTTP client semantic conventions, and the current `ServiceContext` injected
/// into the outgoing headers (W3C `traceparent` with swift-otel), so the server continues the trace.
///
/// Two stages of one type: ``Stage-swift.enum/request`` sits outside the retry stage and owns the span (so one span
/// covers the retries); ``Stage-swift.enum/attempt`` sits inside it and adds an `http.retry` event per retry to that
/// span, sets `http.request.resend_count`, and injects the context into each attempt's headers.
/// `insertObservability(logger:metrics:tracer:)` places both.
///
/// The span is named `GET /v1/people/{id}` when the route's template is known (a model operation, see
/// `MiddlewareContext.urlTemplate`), else `GET`; a method outside the standard ones names it `HTTP` (its attribute
/// `http.request.method` is `_OTHER`, `http.request.method_original` the method sent). Its attributes are
/// `http.request.method`,
/// `server.address`, `server.port`, `url.full` (redacted by the API's ``CRUDKit/Redaction``), `url.template`,
/// `http.response.status_code`, `http.response.body.size`, `error.type`; a 4xx or 5xx answer or a failure sets the
/// status to error, and a failure is recorded redacted.
///
/// A redirect is followed by the transport inside one attempt: the span keeps the request as it was addressed
/// (`url.full`, `url.template`, `server.address`, `server.port`, the name), takes the status and size of the final
/// answer, and says where the redirect led in `crudkit.redirect.url.full` (redacted), `crudkit.redirect.server.address`
/// and `crudkit.redirect.server.port`. The transport drops the credential headers at a change of origin; the
/// propagation headers go on to every hop. The number of hops is not known to the middleware and is not recorded.
///
/// ```swift
/// let api = API(baseURL: base).with { $0.middleware.insertObservability() }
/// ```
public struct DistributedTracingMiddleware: Middleware {
    /// Where in the chain a ``DistributedTracingMiddleware`` runs.
    public enum Stage: Sendable, Hashable {
        /// Outside the retry stage: one span per logical request.
        case request
        /// Inside the retry stage: each attempt's retry event and propagation headers.
        case attempt
    }

    /// Which stage this is.
    public var stage: Stage
    /// The tracer, which also injects the context; `nil` uses the bootstrapped `InstrumentationSystem.tracer` (and
    /// `InstrumentationSystem.instrument` for injection), read at each request.
    public var tracer: (any Tracer)?
    /// What the span's `url.full` and recorded errors never show in clear; `nil` uses the API's
    /// ``CRUDKit/APIConfiguration/redaction``.
    public var redaction: Redaction?
    /// For the attempt stage: whether a request stage of the same tracer is outside it (as
    /// `insertObservability(logger:metrics:tracer:)` places them), which has injected the context into the request
    /// already; then a first attempt has nothing left to do here and passes through without reading the instrument.
    var requestStageOutside = false

    /// Creates a stage.
    /// - Parameters:
    ///   - stage: ``Stage-swift.enum/request`` (outside the retry stage) or ``Stage-swift.enum/attempt`` (inside).
    ///   - tracer: The tracer; `nil` uses the bootstrapped one.
    ///   - redaction: What spans never show in clear; `nil` uses the API's.
    public init(_ stage: Stage = .request, tracer: (any Tracer)? = nil, redaction: Redaction? = nil) {
        self.stage = stage
        self.tracer = tracer
        self.redaction = redaction
    }

    /// `tracing` for the request stage, `tracing.attempt` for the attempt stage.
    public var name: MiddlewareName { stage == .request ? .tracing : .tracingAttempt }

    /// The logical request's span, for the attempt stage inside the retry stage.
    @TaskLocal static var requestSpan: (any Span)?

    /// Whether the stage has nothing to do: no tracer and nothing to inject (the bootstrapped instrument is a no-op,
    /// read without the cast `InstrumentationSystem.tracer` costs), and, for the attempt stage, no span to add a
    /// retry to.
    public func passesThrough(_ request: HTTPRequest, context: MiddlewareContext) -> Bool {
        if requestStageOutside, context.attempt <= 1 { return true }
        if let tracer { return NoOpBackends.isNoOp(tracer) }
        let instrument = InstrumentationSystem.instrument
        return NoOpBackends.isNoOp(instrument)
    }

    /// Traces the request (or attempt) around sending it on through `next`.
    public func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        let tracer = self.tracer ?? InstrumentationSystem.tracer
        switch stage {
        case .request:
            if NoOpBackends.isNoOp(tracer) { return try await Self.propagating(request, context, next, self.tracer) }
            return try await traceRequest(request, context, next, tracer)
        case .attempt:
            if let span = Self.requestSpan, context.attempt > 1 {
                span.attributes[HTTPClientSemantics.resendCount] = context.attempt - 1
                var event = SpanEvent(name: "http.retry")
                event.attributes[HTTPClientSemantics.resendCount] = context.attempt - 1
                if let previous = context.previousFailures.last {
                    event.attributes[HTTPClientSemantics.errorType] =
                        HTTPClientSemantics.errorType(status: nil, failure: previous) ?? "_OTHER"
                }
                span.addEvent(event)
            }
            return try await Self.propagating(request, context, next, self.tracer)
        }
    }

    /// Sends `request` on with the current context injected into its headers, unless there is nothing to inject.
    private static func propagating(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareNext, _ tracer: (any Tracer)?
    ) async throws -> HTTPResponse {
        let instrument: any Instrument = tracer ?? InstrumentationSystem.instrument
        guard !NoOpBackends.isNoOp(instrument), let current = ServiceContext.current
        else { return try await next(request, context) }
        // The injected fields are declared as a trace's context, so identical reads still share one exchange.
        var carrier = HTTPHeadersInjector.Carrier(headers: request.headers, names: context.propagationHeaderNames)
        instrument.inject(current, into: &carrier, using: HTTPHeadersInjector())
        var request = request
        request.headers = carrier.headers
        var context = context
        context.propagationHeaderNames = carrier.names
        return try await next(request, context)
    }

    private func traceRequest(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: @escaping MiddlewareNext, _ tracer: any Tracer
    ) async throws -> HTTPResponse {
        let method = HTTPClientSemantics.method(request)
        let template = context.urlTemplate
        let spanMethod = HTTPClientSemantics.spanMethod(method)
        let span = tracer.startSpan(
            template.map { spanMethod + " " + $0 } ?? spanMethod, context: ServiceContext.current ?? .topLevel,
            ofKind: .client)
        defer { span.end() }
        let redaction = self.redaction ?? context.api.configuration.redaction
        span.updateAttributes { attributes in
            attributes[HTTPClientSemantics.method] = method
            if method != request.method.rawValue {
                attributes[HTTPClientSemantics.methodOriginal] = request.method.rawValue
            }
            attributes[HTTPClientSemantics.serverAddress] = HTTPClientSemantics.serverAddress(request.url)
            attributes[HTTPClientSemantics.serverPort] = HTTPClientSemantics.serverPort(request.url)
            attributes[HTTPClientSemantics.urlFull] = redaction.redact(request.url)
            if let template { attributes[HTTPClientSemantics.urlTemplate] = template }
        }
        do {
            let response = try await ServiceContext.withValue(span.context) {
                try await Self.$requestSpan.withValue(span) {
                    try await Self.propagating(request, context, next, self.tracer)
                }
            }
            span.attributes[HTTPClientSemantics.status] = response.status
            span.attributes[HTTPClientSemantics.responseBodySize] = HTTPClientSemantics.responseBodySize(
                response, for: request)
            Self.recordRedirect(of: response, for: request, on: span, redaction)
            if let type = HTTPClientSemantics.errorType(status: response.status, failure: nil) {
                span.attributes[HTTPClientSemantics.errorType] = type
                span.setStatus(SpanStatus(code: .error))
            }
            return response
        } catch {
            if let status = (error as? CRUDError)?.status {
                span.attributes[HTTPClientSemantics.status] = status
            }
            if let response = (error as? CRUDError)?.response {
                Self.recordRedirect(of: response, for: request, on: span, redaction)
            }
            span.attributes[HTTPClientSemantics.errorType] = HTTPClientSemantics.errorType(error)
            span.setStatus(SpanStatus(code: .error))
            if let failure = error as? CRUDError {
                span.recordError(redaction.redact(failure))
            }
            throw error
        }
    }
}

extension DistributedTracingMiddleware {
    /// Says on `span` where a redirect the transport followed led: the answering URL (redacted), host and port.
    fileprivate static func recordRedirect(
        of response: HTTPResponse, for request: HTTPRequest, on span: any Span, _ redaction: Redaction
    ) {
        guard let redirected = HTTPClientSemantics.redirectedURL(of: response, for: request) else { return }
        span.updateAttributes { attributes in
            attributes[HTTPClientSemantics.redirectURLFull] = redaction.redact(redirected)
            attributes[HTTPClientSemantics.redirectServerAddress] = HTTPClientSemantics.serverAddress(redirected)
            attributes[HTTPClientSemantics.redirectServerPort] = HTTPClientSemantics.serverPort(redirected)
        }
    }
}

extension MiddlewareName {
    /// The name of ``DistributedTracingMiddleware``'s request stage.
    public static let tracing = MiddlewareName("tracing")
    /// The name of ``DistributedTracingMiddleware``'s attempt stage.
    public static let tracingAttempt = MiddlewareName("tracing.attempt")
}
