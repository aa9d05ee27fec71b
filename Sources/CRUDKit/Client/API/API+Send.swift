@_spi(TransportKit) import CRUDKitCore
import Foundation

extension API {
    /// The most attempts one request makes, whatever the retry policy and its `decide` closure ask for.
    package static let attemptLimit = 32

    // twin: future, noasync: the request; spell the type
    /// Sends a typed request through the whole pipeline and reads its answer.
    ///
    /// The request is built (URL under the base URL, default headers and query, body encoded with the API's
    /// encoder), then goes through the request's own ``Request/middleware`` and the API's
    /// ``APIConfiguration/middleware`` to the transport: by default each attempt is adapted by the middleware,
    /// sent, validated by its status, and on failure decided on and perhaps retried (see
    /// `[any Middleware].standard`).
    ///
    /// ```swift
    /// let people = try await api.send(Request<[Person]>(.get, "people", query: ["age_gte": "30"]))
    /// ```
    /// - Returns: The answer as the request reads it.
    /// - Throws: ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func send<Response>(_ request: Request<Response>) async throws -> Response {
        try await send(request, control: nil)
    }

    /// `send(_:)` of a typed request, steered by a ``RequestHandle``'s control when given.
    func send<Response>(_ request: Request<Response>, control: HandleControl?) async throws -> Response {
        let built = try buildHTTPRequest(request)
        let mode = control.map { TransferMode.handle($0, request.observer) } ?? .memory(request.observer)
        let response = try await run(
            built, middleware: request.middleware, retryPolicy: request.retryPolicy, transfer: mode)
        do {
            return try request.decoder.decode(response, api: self)
        } catch {
            throw CRUDError.decoding(error, in: response)
        }
    }

    // twin: future, noasync: the request; spell the type
    /// Sends a request that is already built through the API's middleware chain (validation, retries,
    /// …; see `[any Middleware].standard`) and the transport.
    ///
    /// The API's default headers and query are not added: the request goes as given, after the middleware.
    /// - Returns: The validated response (a success status unless a middleware decided otherwise).
    /// - Throws: ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try request.validate()
        var request = request
        if request.timeout == nil { request.timeout = configuration.timeout }
        if request.deadline == nil { request.deadline = configuration.deadline }
        return try await run(request, retryPolicy: nil, transfer: .memory(.none))
    }

    /// The ``HTTPRequest`` a ``Request`` becomes before any middleware: URL with the default and own query,
    /// default headers under its own, `Accept` and `Content-Type`, an `Idempotency-Key` when the API's middleware has
    /// a stage named ``MiddlewareName/idempotencyKeys`` (an ``IdempotencyKeyMiddleware``), the timeout.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` for a bad URL, a body that cannot be encoded, or a header
    ///   with CR/LF (see `HTTPRequest/validate()`).
    public func makeHTTPRequest<Response>(_ request: Request<Response>) throws -> HTTPRequest {
        let built = try buildHTTPRequest(request)
        guard configuration.middleware.contains(where: { $0.name == .idempotencyKeys }) else { return built }
        return IdempotencyKeyMiddleware.keyed(built) ?? built
    }

    /// ``makeHTTPRequest(_:)`` without the `Idempotency-Key`, which the ``IdempotencyKeyMiddleware`` stage of the
    /// chain adds. The request's own deadline wins, then the API's: ``APIConfiguration/downloadDeadline`` for a body
    /// bound for a file (`toFile`), ``APIConfiguration/deadline`` otherwise.
    func buildHTTPRequest<Response>(_ request: Request<Response>, toFile: Bool = false) throws -> HTTPRequest {
        let url = try paths.url(for: request.endpoint, query: mergedQuery(request.query))
        var headers = configuration.headers
        if !request.headers.isEmpty { headers = headers.merging(request.headers) }
        let (body, contentType) = try request.body.encoded(using: configuration.conventions.bodyCoding)
        // JSON goes out as the conventions' media type (`application/vnd.api+json` for JSON:API).
        let mediaType = configuration.conventions.mediaType
        if let contentType, !headers.contains("Content-Type") {
            headers["Content-Type"] = contentType == "application/json" ? mediaType : contentType
        }
        if !headers.contains("Accept") { headers["Accept"] = mediaType }
        let built = HTTPRequest(
            method: request.method, url: url, headers: headers, body: body,
            timeout: request.timeout ?? configuration.timeout,
            deadline: request.deadline ?? (toFile ? configuration.downloadDeadline : configuration.deadline))
        try built.validate()
        return built
    }

    // twin: none (`download(_:to:query:headers:progress:)` has the Future form)
    /// Sends a typed request whose successful body goes to `destination` instead of memory (see
    /// ``Transport/download(_:to:observer:)``), through the same middleware chain (the cache and coalescing stages
    /// leave it alone).
    /// - Returns: The response; its body is empty when it went to the file.
    /// - Throws: ``CRUDError``.
    @discardableResult
    public func download(_ request: Request<HTTPResponse>, to destination: URL) async throws -> HTTPResponse {
        let built = try buildHTTPRequest(request, toFile: true)
        return try await run(
            built, middleware: request.middleware, retryPolicy: request.retryPolicy,
            transfer: .file(destination, request.observer))
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
}
