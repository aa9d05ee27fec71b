extension StandardMiddleware {
    /// The ``logging`` stage: an event when the attempt is sent, when its response arrives, and when it fails.
    ///
    /// A failure that carries a response (a bad status, a validation error) is logged as answered, then failed.
    static func log(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareChain.Next
    ) async throws
        -> HTTPResponse
    {
        let configuration = context.api.configuration
        guard let log = configuration.logHandler else { return try await next(request, context) }
        let clock = configuration.clock
        let redaction = configuration.redaction
        let attempt = context.attempt
        let sentAt = clock.now()
        log(LogEvent(.requestSent, request, attempt: attempt, redaction: redaction))
        do {
            let response = try await next(request, context)
            log(
                LogEvent(
                    .responseReceived(status: response.status), request, attempt: attempt,
                    duration: clock.now() - sentAt, response: response, redaction: redaction))
            return response
        } catch {
            let failure = error as? CRUDError ?? CRUDError.fromTransport(error, timeout: request.timeout ?? 0)
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

extension LogEvent {
    /// The event of `kind` for `request`, with the URL and headers redacted by `redaction`: the request's headers
    /// for ``Kind/requestSent`` (those it marks sensitive hidden too), the response's when there is one.
    init(
        _ kind: Kind,
        _ request: HTTPRequest,
        attempt: Int,
        duration: Duration? = nil,
        response: HTTPResponse? = nil,
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
            responseBodySize: response?.body.count)
    }
}
