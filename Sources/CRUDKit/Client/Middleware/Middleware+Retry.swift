extension StandardMiddleware {
    /// The ``retry`` stage: attempts until one succeeds or the retry policy gives up.
    static func retry(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareChain.Next
    ) async throws
        -> HTTPResponse
    {
        // The configuration's fields are read one by one: a copy of all of it costs a retain per field.
        let api = context.api
        var context = context
        while true {
            if Task.isCancelled { throw CRUDError.cancelled }
            let sent = adapt(request, context)
            let error: CRUDError
            do {
                return try await next(sent, context)
            } catch let failure as CRUDError {
                error = failure
            } catch let other {
                error = Task.isCancelled ? .cancelled : .fromTransport(other, timeout: sent.timeout ?? 0)
            }
            if case .cancelled = error { throw error }
            // The decision sees the time spent so far, this attempt included.
            let delay = try await retryDelay(for: sent, error: error, context: context)
            if let log = api.configuration.logHandler {
                log(
                    LogEvent(
                        .retrying(after: delay), sent, attempt: context.attempt, redaction: api.configuration.redaction)
                )
            }
            if delay > .zero {
                do {
                    try await api.configuration.clock.sleep(for: delay)
                } catch {
                    throw CRUDError.cancelled
                }
            }
            context.previousFailures.append(error)
            context.attempt += 1
        }
    }

    /// Marks the API's secret headers of the attempt.
    private static func adapt(_ request: HTTPRequest, _ context: MiddlewareContext) -> HTTPRequest {
        var adapted = request
        let redaction = context.api.configuration.redaction
        // Usually the request marks nothing itself: the API's set is shared then, not copied name by name.
        if adapted.sensitiveHeaderNames.isEmpty {
            adapted.sensitiveHeaderNames = redaction.headerNames
        } else {
            adapted.sensitiveHeaderNames.formUnion(redaction.headerNames)
        }
        markSecretNames(&adapted, redaction)
        return adapted
    }

    /// Marks the headers of `request` named by the API's own secret words (the default words are checked by
    /// `RedirectPolicy` itself); the retry stage does it for each attempt, an `.adapt` middleware for what it adds.
    package static func markSecretNames(_ request: inout HTTPRequest, _ redaction: Redaction) {
        guard redaction.addsSecretNames else { return }
        for field in request.headers where redaction.namesSecret(field.name) {
            request.sensitiveHeaderNames.insert(field.name.lowercased())
        }
    }

    /// Asks the retry policy (its ``RetryPolicy/decide`` closure first) whether and when to send `request` again.
    /// - Throws: The error to fail with when it does not retry.
    private static func retryDelay(
        for request: HTTPRequest,
        error: CRUDError,
        context: MiddlewareContext
    ) async throws -> Duration {
        guard context.attempt < API.attemptLimit else { throw error }
        let api = context.api
        let elapsed = context.elapsed
        if let decide = context.retryPolicy.decide {
            switch await decide(request, error, context) {
            case .retry(let delay): return delay
            case .fail(let replacement): throw replacement
            case .doNotRetry: break
            }
        }
        let decision = context.retryPolicy.decision(
            for: request, failedWith: error, attempt: context.attempt, elapsed: elapsed,
            now: api.configuration.clock.date())
        guard case .retry(let delay) = decision else { throw error }
        return delay
    }
}
