extension StandardMiddleware {
    /// The ``retry`` stage: attempts, each adapted by the interceptors, until one succeeds or nobody retries.
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
            let sent = try await adapt(request, context)
            let error: CRUDError
            do {
                return try await next(sent, context)
            } catch let failure as CRUDError {
                error = failure
            } catch let other {
                error = Task.isCancelled ? .cancelled : .fromTransport(other, timeout: sent.timeout ?? 0)
            }
            if case .cancelled = error { throw error }
            // The decision sees the time spent so far, this attempt included: an interceptor that waits (for a
            // token refresh, say) counts the request's deadline from it.
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

    /// Runs every interceptor's `adapt` and checks the headers they produced; marks the API's secret headers.
    private static func adapt(_ request: HTTPRequest, _ context: MiddlewareContext) async throws -> HTTPRequest {
        var adapted = request
        let api = context.api
        let interceptors = api.configuration.interceptors
        if !interceptors.isEmpty {
            let interceptorContext = context.interceptorContext
            do {
                for interceptor in interceptors {
                    adapted = try await interceptor.adapt(adapted, context: interceptorContext)
                }
            } catch {
                throw CRUDError.fromAdapter(error)
            }
            // The URL is parsed again only when an interceptor changed it (parsing costs about a microsecond).
            if adapted.url != request.url || adapted.method != request.method {
                try adapted.validate()
            } else {
                try adapted.validateHeaders()
            }
        }
        let redaction = api.configuration.redaction
        // Usually the request marks nothing itself: the API's set is shared then, not copied name by name.
        if adapted.sensitiveHeaderNames.isEmpty {
            adapted.sensitiveHeaderNames = redaction.headerNames
        } else {
            adapted.sensitiveHeaderNames.formUnion(redaction.headerNames)
        }
        // Headers named by the API's own secret words; the default words are checked by `RedirectPolicy` itself.
        if redaction.addsSecretNames {
            for field in adapted.headers where redaction.namesSecret(field.name) {
                adapted.sensitiveHeaderNames.insert(field.name.lowercased())
            }
        }
        return adapted
    }

    /// Asks the interceptors, then the retry policy, whether and when to send `request` again.
    /// - Throws: The error to fail with when nobody retries.
    private static func retryDelay(
        for request: HTTPRequest,
        error: CRUDError,
        context: MiddlewareContext
    ) async throws -> Duration {
        guard context.attempt < API.attemptLimit else { throw error }
        let api = context.api
        let interceptors = api.configuration.interceptors
        let elapsed = context.elapsed
        if !interceptors.isEmpty {
            let decided = InterceptorContext(
                api: context.api, attempt: context.attempt, originalRequest: context.originalRequest,
                previousFailures: context.previousFailures, elapsed: elapsed)
            for interceptor in interceptors {
                if await interceptor.decide(on: error, for: request, context: decided) == .stop { throw error }
                switch await interceptor.retry(request, failedWith: error, context: decided) {
                case .retry(let delay): return delay
                case .fail(let replacement): throw replacement
                case .doNotRetry: continue
                }
            }
        }
        let decision = context.retryPolicy.decision(
            for: request, failedWith: error, attempt: context.attempt, elapsed: elapsed,
            now: api.configuration.clock.date())
        guard case .retry(let delay) = decision else { throw error }
        return delay
    }
}
