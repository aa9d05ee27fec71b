import CRUDKit
import Logging

/// Logs each attempt of CRUDKit's requests to a swift-log `Logger`: sent, answered, retried and failed, with
/// structured metadata, redacted by the API's ``CRUDKit/Redaction`` exactly as CRUDKit's own descriptions are.
///
/// It sits inside the retry stage (`insertObservability(logger:metrics:tracer:)` puts it there), so each attempt
/// is a line of its own and a retry is logged as it starts. The metadata keys follow OpenTelemetry's names where
/// there is one: `http.request.method`, `url.full` (redacted), `url.template` (when known),
/// `http.response.status_code`, `http.response.body.size`, `error.type`, plus `crudkit.attempt` (from 1) and
/// `crudkit.duration` (seconds, from sending to the answer or failure), and `crudkit.redirect.url.full` (redacted)
/// when the transport followed a redirect to another URL. The default levels (``Levels``): sent at `.trace`, 2xx and
/// 3xx at `.debug`, 4xx at `.info`, a retry at `.notice`, 5xx at `.warning`, a transport error or timeout at
/// `.error`, a cancellation at `.debug`.
///
/// A line the logger's level drops is never built: the level is read once per attempt, before any message,
/// metadata or merge of the task's metadata (and swift-log reads it again for each line written).
///
/// The logger: one bound for the task with swift-log's `withLogger(_:_:)` wins (a logger per request); otherwise
/// ``logger`` (one per API), with the metadata the task added by `withLogger(mergingMetadata:_:)` (a request id,
/// say); otherwise `Logger.current`.
///
/// ```swift
/// let api = API(baseURL: base).with { $0.middleware.insertObservability(logger: Logger(label: "people-client")) }
/// try await withLogger(mergingMetadata: ["request.id": "\(id)"]) { _ in try await Person.using(api).read(id: 12) }
/// ```
public struct SwiftLogMiddleware: Middleware {
    /// The level of each kind of line.
    public struct Levels: Sendable, Hashable {
        /// An attempt handed to the transport.
        public var sent: Logger.Level = .trace
        /// A 1xx, 2xx or 3xx answer.
        public var success: Logger.Level = .debug
        /// A 4xx answer.
        public var clientError: Logger.Level = .info
        /// A 5xx answer.
        public var serverError: Logger.Level = .warning
        /// A retry, logged as the next attempt starts (with the failure retried).
        public var retry: Logger.Level = .notice
        /// A failure without an answer: transport error, timeout, too many redirects, a response too large.
        public var failure: Logger.Level = .error
        /// A cancelled attempt.
        public var cancelled: Logger.Level = .debug

        /// The default levels.
        public init() {}

        /// The most severe of the levels: a logger above it logs none of the lines.
        var highest: Logger.Level { max(sent, success, clientError, serverError, retry, failure, cancelled) }
    }

    /// The logger of the API; `nil` uses the task's (`Logger.current`). A logger bound with `withLogger(_:_:)`
    /// wins over it for the requests sent inside.
    public var logger: Logger?
    /// The level of each kind of line.
    public var levels: Levels
    /// What the lines never show in clear; `nil` uses the API's ``CRUDKit/APIConfiguration/redaction``.
    public var redaction: Redaction?

    /// Creates the stage.
    /// - Parameters:
    ///   - logger: The API's logger; `nil` uses the task's.
    ///   - levels: The level of each kind of line.
    ///   - redaction: What the lines never show in clear; `nil` uses the API's.
    public init(logger: Logger? = nil, levels: Levels = Levels(), redaction: Redaction? = nil) {
        self.logger = logger
        self.levels = levels
        self.redaction = redaction
    }

    /// `swiftLog`.
    public var name: MiddlewareName { .swiftLog }

    /// The level of the logger a request would log to, read without building that logger (no metadata merged).
    private func level(task: Logger) -> Logger.Level {
        // swift-log's unbound task logger has an empty label (its documented "no withLogger scope" signal).
        task.label.isEmpty ? (logger?.logLevel ?? task.logLevel) : task.logLevel
    }

    /// The logger for a request: the task's bound one, else ours with the task's metadata, else the task's. Built
    /// only for a line that is written.
    private func lineLogger(task: Logger) -> Logger {
        if !task.label.isEmpty { return task }
        guard var logger else { return task }
        for (key, value) in task.handler.metadata { logger[metadataKey: key] = value }
        return logger
    }

    /// Whether the stage has nothing to do: the logger a request would log to writes through swift-log's
    /// `SwiftLogNoOpLogHandler`, which drops every line whatever its level.
    ///
    /// The logger's level is not read here: ``intercept(_:context:next:)`` reads it, once per attempt (a logger
    /// above every level of ``levels`` costs an attempt that one read and the stage's frame).
    public func passesThrough(_ request: HTTPRequest, context: MiddlewareContext) -> Bool {
        let task = Logger.current
        return NoOpBackends.isNoOp(task.label.isEmpty ? (logger ?? task).handler : task.handler)
    }

    /// Logs the attempt around sending it on through `next`.
    ///
    /// The logger's level is read once, before anything else: a line it would drop is never built (no message, no
    /// metadata, no merge of the task's metadata into the API's logger, no redaction, not even the clock reading
    /// that ends the duration), so a `.info` logger costs a 2xx attempt one clock reading and nothing more.
    public func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        let task = Logger.current
        let level = level(task: task)
        let levels = self.levels
        if level > levels.highest { return try await next(request, context) }
        // The API's redaction, read only for a line that is written.
        func redaction() -> Redaction { self.redaction ?? context.api.configuration.redaction }
        // The metadata is built only for a line the logger's level lets through (none, at `.info`, for a success).
        func base() -> Logger.Metadata {
            var metadata: Logger.Metadata = [
                HTTPClientSemantics.method: .string(request.method.rawValue),
                HTTPClientSemantics.urlFull: .string(redaction().redact(request.url)),
                "crudkit.attempt": .stringConvertible(context.attempt),
            ]
            if let template = context.urlTemplate { metadata[HTTPClientSemantics.urlTemplate] = .string(template) }
            return metadata
        }
        let clock = context.api.configuration.clock
        // An answer, logged at the level of its status.
        func answered(_ response: HTTPResponse, since started: Duration) {
            let lineLevel: Logger.Level
            switch response.status {
            case 500...: lineLevel = levels.serverError
            case 400..<500: lineLevel = levels.clientError
            default: lineLevel = levels.success
            }
            guard level <= lineLevel else { return }
            let elapsed = clock.now() - started
            var metadata = base()
            metadata[HTTPClientSemantics.status] = .stringConvertible(response.status)
            metadata[HTTPClientSemantics.responseBodySize] = .stringConvertible(
                HTTPClientSemantics.responseBodySize(response, for: request))
            metadata["crudkit.duration"] = .string(Self.seconds(elapsed))
            if let type = HTTPClientSemantics.errorType(status: response.status, failure: nil) {
                metadata[HTTPClientSemantics.errorType] = .string(type)
            }
            if let redirected = HTTPClientSemantics.redirectedURL(of: response, for: request) {
                metadata[HTTPClientSemantics.redirectURLFull] = .string(redaction().redact(redirected))
            }
            lineLogger(task: task).log(level: lineLevel, "CRUDKit response received", metadata: metadata)
        }
        if context.attempt > 1, level <= levels.retry {
            var retry = base()
            if let previous = context.previousFailures.last {
                retry[HTTPClientSemantics.errorType] = .string(
                    HTTPClientSemantics.errorType(status: nil, failure: previous) ?? "_OTHER")
            }
            lineLogger(task: task).log(level: levels.retry, "CRUDKit retrying request", metadata: retry)
        }
        if level <= levels.sent {
            lineLogger(task: task).log(level: levels.sent, "CRUDKit request sent", metadata: base())
        }
        let started = clock.now()
        do {
            let response = try await next(request, context)
            answered(response, since: started)
            return response
        } catch {
            if let response = (error as? CRUDError)?.response {
                answered(response, since: started)
                throw error
            }
            let type = HTTPClientSemantics.errorType(error)
            let lineLevel = type == "cancelled" ? levels.cancelled : levels.failure
            guard level <= lineLevel else { throw error }
            let elapsed = clock.now() - started
            var metadata = base()
            metadata["crudkit.duration"] = .string(Self.seconds(elapsed))
            metadata[HTTPClientSemantics.errorType] = .string(type)
            if let failure = error as? CRUDError {
                metadata["crudkit.error"] = .string(redaction().redact(failure).description)
            }
            lineLogger(task: task).log(level: lineLevel, "CRUDKit request failed", metadata: metadata)
            throw error
        }
    }

    /// `elapsed` in seconds, to the microsecond.
    private static func seconds(_ elapsed: Duration) -> String {
        let (seconds, attoseconds) = max(elapsed, .zero).components
        let micros = attoseconds / 1_000_000_000_000
        let fraction = String(micros)
        return "\(seconds)." + String(repeating: "0", count: max(0, 6 - fraction.count)) + fraction
    }
}

extension MiddlewareName {
    /// The name of ``SwiftLogMiddleware``.
    public static let swiftLog = MiddlewareName("swiftLog")
}
