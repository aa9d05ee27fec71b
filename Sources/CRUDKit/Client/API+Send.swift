import Foundation

extension API {
    /// The most attempts one request makes, whatever interceptors and the retry policy ask for.
    public static let attemptLimit = 32

    // twin: future, noasync: the request; spell the type
    /// Sends a typed request through the whole pipeline and reads its answer.
    ///
    /// The request is built (URL under the base URL, default headers and query, body encoded with the API's
    /// encoder), then each attempt is adapted by the interceptors, sent by the transport, validated by the
    /// interceptors and by its status, and on failure decided on and perhaps retried.
    ///
    /// ```swift
    /// let people = try await api.send(Request<[Person]>(.get, "people", query: ["age_gte": "30"]))
    /// ```
    /// - Returns: The answer as the request reads it.
    /// - Throws: ``CRUDError``.
    @discardableResult
    public func send<Response>(_ request: Request<Response>) async throws -> Response {
        try await send(request, control: nil)
    }

    /// `send(_:)` of a typed request, steered by a ``RequestHandle``'s control when given.
    func send<Response>(_ request: Request<Response>, control: HandleControl?) async throws -> Response {
        let built = try makeHTTPRequest(request)
        let mode = control.map { TransferMode.handle($0, request.observer) } ?? .memory(request.observer)
        let response = try await perform(
            built, retryPolicy: request.retryPolicy ?? configuration.retryPolicy, mode: mode)
        do {
            return try request.decode(response, self)
        } catch {
            throw CRUDError.decoding(error, body: response.body)
        }
    }

    // twin: future, noasync: the request; spell the type
    /// Sends a request that is already built through the interceptors, the transport, validation and retries.
    ///
    /// The API's default headers and query are not added: the request goes as given, after the interceptors.
    /// - Returns: The validated response (a success status unless an interceptor decided otherwise).
    /// - Throws: ``CRUDError``.
    @discardableResult
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try request.validate()
        var request = request
        if request.timeout == nil { request.timeout = configuration.timeout }
        if request.deadline == nil { request.deadline = configuration.deadline }
        return try await perform(request, retryPolicy: configuration.retryPolicy, mode: .memory(.none))
    }

    /// The ``HTTPRequest`` a ``Request`` becomes before any interceptor: URL with the default and own query,
    /// default headers under its own, `Accept` and `Content-Type`, an `Idempotency-Key` when configured, the timeout.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` for a bad URL, a body that cannot be encoded, or a header
    ///   with CR/LF (see ``HTTPRequest/validate()``).
    public func makeHTTPRequest<Response>(_ request: Request<Response>) throws -> HTTPRequest {
        let url = try paths.url(for: request.endpoint, query: mergedQuery(request.query))
        var headers = configuration.headers
        if !request.headers.isEmpty { headers = headers.merging(request.headers) }
        let (body, contentType) = try request.body.encoded(using: configuration.coding)
        if let contentType, !headers.contains("Content-Type") { headers["Content-Type"] = contentType }
        if !headers.contains("Accept") { headers["Accept"] = "application/json" }
        if configuration.addsIdempotencyKeys, request.method == .post, !headers.contains("Idempotency-Key") {
            headers["Idempotency-Key"] = UUID().uuidString
        }
        let built = HTTPRequest(
            method: request.method, url: url, headers: headers, body: body,
            timeout: request.timeout ?? configuration.timeout, deadline: request.deadline ?? configuration.deadline)
        try built.validate()
        return built
    }

    // twin: none (`download(_:to:query:headers:progress:)` has the Future form)
    /// Sends a typed request whose successful body goes to `destination` instead of memory (see
    /// ``Transport/download(_:to:observer:)``), through the same interceptors and retries.
    /// - Returns: The response; its body is empty when it went to the file.
    /// - Throws: ``CRUDError``.
    @discardableResult
    public func download(_ request: Request<HTTPResponse>, to destination: URL) async throws -> HTTPResponse {
        let built = try makeHTTPRequest(request)
        return try await perform(
            built, retryPolicy: request.retryPolicy ?? configuration.retryPolicy,
            mode: .file(destination, request.observer))
    }

    // MARK: - The attempt loop

    /// Where a response body goes.
    package enum TransferMode: Sendable {
        /// Into the response, in memory.
        case memory(TransferObserver)
        /// Into a file, for a success.
        case file(URL, TransferObserver)
        /// Into the response, steered by a ``RequestHandle`` (see ``HandleControl``).
        case handle(HandleControl, TransferObserver)
    }

    private func perform(
        _ request: HTTPRequest,
        retryPolicy: RetryPolicy,
        mode: TransferMode
    ) async throws -> HTTPResponse {
        let clock = configuration.clock
        let log = configuration.logHandler
        let started = clock.now()
        var failures: [CRUDError] = []
        var attempt = 1
        while true {
            if Task.isCancelled { throw CRUDError.cancelled }
            let context = InterceptorContext(
                api: self, attempt: attempt, originalRequest: request, previousFailures: failures,
                elapsed: clock.now() - started)
            let sent = try await adapt(request, context: context)
            let error: CRUDError
            switch await attemptOnce(sent, context: context, log: log, mode: mode) {
            case .success(let response): return response
            case .failure(let failure): error = failure
            }
            if case .cancelled = error { throw error }
            // The decision sees the time spent so far, this attempt included: an interceptor that waits (for a
            // token refresh, say) counts the request's deadline from it.
            let decided = InterceptorContext(
                api: self, attempt: attempt, originalRequest: request, previousFailures: failures,
                elapsed: clock.now() - started)
            let delay = try await retryDelay(
                for: sent, error: error, context: decided, policy: retryPolicy, elapsed: decided.elapsed)
            if let log {
                log(event(.retrying(after: delay), sent, attempt: attempt))
            }
            if delay > .zero {
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    throw CRUDError.cancelled
                }
            }
            failures.append(error)
            attempt += 1
        }
    }

    /// Runs every interceptor's `adapt` and checks the headers they produced.
    private func adapt(_ request: HTTPRequest, context: InterceptorContext) async throws -> HTTPRequest {
        var adapted = request
        let interceptors = configuration.interceptors
        if !interceptors.isEmpty {
            do {
                for interceptor in interceptors {
                    adapted = try await interceptor.adapt(adapted, context: context)
                }
            } catch {
                throw CRUDError.fromAdapter(error)
            }
            try adapted.validate()
        }
        adapted.sensitiveHeaderNames.formUnion(configuration.redaction.headerNames)
        return adapted
    }

    /// Sends one attempt, logs it, and validates the response.
    private func attemptOnce(
        _ request: HTTPRequest,
        context: InterceptorContext,
        log: LogHandler?,
        mode: TransferMode
    ) async -> Result<HTTPResponse, CRUDError> {
        let clock = configuration.clock
        let sentAt = log == nil ? .zero : clock.now()
        if let log { log(event(.requestSent, request, attempt: context.attempt)) }
        let result = await sendAndValidate(request, context: context, log: log, sentAt: sentAt, mode: mode)
        if let log, case .failure(let failure) = result {
            let shown = configuration.redaction.redact(failure)
            log(event(.failed(shown), request, attempt: context.attempt, duration: clock.now() - sentAt))
        }
        return result
    }

    private func sendAndValidate(
        _ request: HTTPRequest,
        context: InterceptorContext,
        log: LogHandler?,
        sentAt: Duration,
        mode: TransferMode
    ) async -> Result<HTTPResponse, CRUDError> {
        var response: HTTPResponse
        do {
            switch mode {
            case .memory(let observer):
                response = try await exchange(request, observer: observer)
            case .handle(let control, let observer):
                response = try await control.exchange(request, observer: observer, api: self)
            case .file(let destination, let observer):
                response = try await configuration.transport.download(request, to: destination, observer: observer)
            }
        } catch {
            return .failure(Task.isCancelled ? .cancelled : .fromTransport(error, timeout: request.timeout ?? 0))
        }
        response.sentCredentials = SentCredentials(of: request, redaction: configuration.redaction)  // for descriptions
        if let log {
            log(
                event(
                    .responseReceived(status: response.status), request, attempt: context.attempt,
                    duration: configuration.clock.now() - sentAt, response: response))
        }
        do {
            for interceptor in configuration.interceptors {
                try interceptor.validate(response, for: request, context: context)
            }
        } catch {
            return .failure(CRUDError.fromValidator(error, response: response))
        }
        return response.isSuccess ? .success(response) : .failure(CRUDError.fromStatus(response))
    }

    /// Asks the interceptors, then the retry policy, whether and when to send `request` again.
    /// - Throws: The error to fail with when nobody retries.
    private func retryDelay(
        for request: HTTPRequest,
        error: CRUDError,
        context: InterceptorContext,
        policy: RetryPolicy,
        elapsed: Duration
    ) async throws -> Duration {
        guard context.attempt < Self.attemptLimit else { throw error }
        for interceptor in configuration.interceptors {
            if await interceptor.decide(on: error, for: request, context: context) == .stop { throw error }
            switch await interceptor.retry(request, failedWith: error, context: context) {
            case .retry(let delay): return delay
            case .fail(let replacement): throw replacement
            case .doNotRetry: continue
            }
        }
        let decision = policy.decision(
            for: request, failedWith: error, attempt: context.attempt, elapsed: elapsed,
            now: configuration.clock.date())
        guard case .retry(let delay) = decision else { throw error }
        return delay
    }

    private func event(
        _ kind: LogEvent.Kind,
        _ request: HTTPRequest,
        attempt: Int,
        duration: Duration? = nil,
        response: HTTPResponse? = nil
    ) -> LogEvent {
        let redaction = configuration.redaction
        var headers: HTTPHeaders = [:]
        if case .requestSent = kind { headers = redaction.redact(request.headers) }
        if let response { headers = redaction.redact(response.headers) }
        return LogEvent(
            kind: kind, method: request.method, url: redaction.redact(request.url), headers: headers,
            attempt: attempt, duration: duration,
            requestBodySize: request.body.data?.count ?? (request.body == .none ? 0 : nil),
            responseBodySize: response?.body.count)
    }
}
