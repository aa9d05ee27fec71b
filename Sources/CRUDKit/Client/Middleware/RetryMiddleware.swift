/// The standard stage that runs the attempts: it sends the request once or more (each attempt from the request it
/// received), and after a failed one asks the retry policy — its ``RetryPolicy/decide`` closure first — whether
/// and when to send it again, waiting on the API's clock; at most 32 attempts.
///
/// A request's own ``Request/retryPolicy`` wins over the stage's ``policy``. In the default (`.standard`) list
/// with ``RetryPolicy/none``; `API(baseURL:retryPolicy:)` and `insert(_:)` replace it with another policy.
/// Each retry is logged through the call's first ``LoggingMiddleware`` that has run, if any.
///
/// ```swift
/// let api = API(baseURL: base).with { $0.middleware.insert(RetryMiddleware(policy: .standard)) }
/// ```
public struct RetryMiddleware: Middleware {
    /// When failed requests are sent again (a request's own ``Request/retryPolicy`` wins).
    public var policy: RetryPolicy

    /// Creates the stage.
    /// - Parameter policy: When failed requests are sent again; by default never (``RetryPolicy/none``).
    public init(policy: RetryPolicy = .none) {
        self.policy = policy
    }

    /// ``MiddlewareName/retry``.
    public var name: MiddlewareName { .retry }

    /// Sends `request` through `next` until an attempt succeeds or the retry policy gives up.
    public func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        // The policy is read only after a failure, so a request that succeeds at once copies none of it.
        // The configuration's fields are read one by one: a copy of all of it costs a retain per field.
        let api = context.api
        var context = context
        while true {
            if Task.isCancelled { throw CRUDError.cancelled }
            let sent = Self.adapt(request, context)
            let error: CRUDError
            do {
                return try await next(sent, context)
            } catch let failure as CRUDError {
                error = failure
            } catch let other {
                error = Task.isCancelled ? .cancelled : .fromTransport(other, timeout: sent.timeout)
            }
            if case .cancelled = error { throw error }
            // The decision sees the time spent so far, this attempt included.
            let delay = try await Self.retryDelay(
                for: sent, error: error, context: context, policy: context.call.retryPolicy ?? policy)
            if let logging = context.call.retryLogger {
                logging.handler(
                    LogEvent(
                        .retrying(after: delay), sent, attempt: context.attempt,
                        redaction: logging.redaction ?? api.configuration.redaction))
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
        context: MiddlewareContext,
        policy: RetryPolicy
    ) async throws -> Duration {
        guard context.attempt < API.attemptLimit else { throw error }
        let elapsed = context.elapsed
        if let decide = policy.decide {
            switch await decide(request, error, context) {
            case .retry(let delay): return delay
            case .fail(let replacement): throw replacement
            case .doNotRetry: break
            }
        }
        let decision = policy.decision(
            for: request, failedWith: error, attempt: context.attempt, elapsed: elapsed,
            now: context.api.configuration.clock.date())
        guard case .retry(let delay) = decision else { throw error }
        return delay
    }
}
