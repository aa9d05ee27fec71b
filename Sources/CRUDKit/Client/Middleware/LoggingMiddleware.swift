import Foundation

/// The standard stage that logs each attempt: an event when it is sent, when its response arrives (before the
/// status check, when placed at its standard position), and when it fails; ``RetryMiddleware`` logs each retry
/// through the first logging stage of the call that has run (inside or outside the retry stage).
///
/// A failure that carries a response (a bad status, a validation error) is logged as answered, then failed. URLs
/// and headers are redacted by ``redaction``, or by the API's ``APIConfiguration/redaction`` when it is `nil`. Not
/// in the default (`.standard`) list: add it to log.
///
/// ```swift
/// let api = API(baseURL: base).with { $0.middleware.insert(LoggingMiddleware { event in logger.debug("\(event)") }) }
/// ```
public struct LoggingMiddleware: Middleware {
    /// Receives the events.
    public var handler: LogHandler
    /// What the events never show in clear; `nil` uses the API's ``APIConfiguration/redaction``.
    public var redaction: Redaction?

    /// Creates the stage.
    /// - Parameters:
    ///   - handler: Receives an event per attempt sent, response received, failure and retry.
    ///   - redaction: What the events never show in clear; `nil` uses the API's.
    public init(_ handler: @escaping LogHandler, redaction: Redaction? = nil) {
        self.handler = handler
        self.redaction = redaction
    }

    /// ``MiddlewareName/logging``.
    public var name: MiddlewareName { .logging }

    /// Logs the attempt around sending `request` on through `next`.
    public func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        context.call.ran(self)  // the first logging stage that runs logs the retries
        let log = handler
        let clock = context.api.configuration.clock
        let redaction = self.redaction ?? context.api.configuration.redaction
        let attempt = context.attempt
        let sentAt = clock.now()
        log(LogEvent(.requestSent, request, attempt: attempt, redaction: redaction))
        do {
            let response = try await next(request, context)
            var received: Int?
            if case .file(let destination, _) = context.transfer, response.isSuccess, response.body.isEmpty {
                // A download's body went to the file: its size is what was received.
                received = Self.size(of: destination)
            }
            log(
                LogEvent(
                    .responseReceived(status: response.status), request, attempt: attempt,
                    duration: clock.now() - sentAt, response: response, received: received, redaction: redaction))
            return response
        } catch {
            let failure = error as? CRUDError ?? CRUDError.fromTransport(error, timeout: request.timeout)
            if let response = failure.response {
                log(
                    LogEvent(
                        .responseReceived(status: response.status), request, attempt: attempt,
                        duration: clock.now() - sentAt, response: response, redaction: redaction))
            }
            log(
                LogEvent(
                    .failed(redaction.redact(failure)), request, attempt: attempt, duration: clock.now() - sentAt,
                    redaction: redaction))
            throw failure
        }
    }
}
extension LoggingMiddleware {
    /// The size of the file at `url` in bytes; `nil` when it cannot be read.
    static func size(of url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
    }
}

extension LogEvent {
    /// The event of `kind` for `request`, with the URL and headers redacted by `redaction`: the request's headers
    /// for ``Kind/requestSent`` (those it marks sensitive hidden too), the response's when there is one.
    init(
        _ kind: Kind,
        _ request: HTTPRequest,
        attempt: Int,
        duration: Duration? = nil,
        response: HTTPResponse? = nil,
        received: Int? = nil,
        redaction: Redaction
    ) {
        var headers: HTTPHeaders = [:]
        if case .requestSent = kind {
            headers = redaction.redact(request.headers, alsoHiding: request.sensitiveHeaderNames)
        }
        if let response { headers = redaction.redact(response.headers) }
        self.init(
            kind: kind, method: request.method, url: redaction.redact(request.url), headers: headers,
            attempt: attempt, duration: duration,
            requestBodySize: request.body.data?.count ?? (request.body == .none ? 0 : nil),
            responseBodySize: received ?? response?.body.count)
    }
}
