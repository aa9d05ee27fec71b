extension TokenRefresher: Middleware {
    /// `tokenRefresh`.
    public nonisolated var name: MiddlewareName { .tokenRefresh }

    /// Sets the token header (after waiting for a refresh that is running), and on an expired-token status
    /// refreshes once (or joins the refresh running) and sends the request once more.
    ///
    /// Place it inside the ``RetryMiddleware`` and outside ``ValidationMiddleware`` (which
    /// turns a 401 into the error it reacts to):
    ///
    /// ```swift
    /// let api = API(baseURL: base).with { $0.middleware.insert(refresher, after: .retry) }
    /// ```
    /// - Throws: What the rest of the chain throws, or what the refresh failed with.
    public nonisolated func intercept(
        _ request: HTTPRequest,
        context: MiddlewareContext,
        next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        var context = context
        while true {
            let sent: HTTPRequest
            do {
                sent = try await adapt(request, context: context)
            } catch {
                throw CRUDError.fromAdapter(error)
            }
            try sent.validateHeaders()  // only a header changed
            do {
                return try await next(sent, context)
            } catch let error as CRUDError {
                switch await retry(sent, failedWith: error, context: context) {
                case .retry: context.previousFailures.append(error)
                case .fail(let replacement): throw replacement
                case .doNotRetry: throw error
                }
            }
        }
    }
}

extension MiddlewareName {
    /// A ``TokenRefresher`` used as a middleware.
    public static let tokenRefresh = MiddlewareName(standard: "tokenRefresh")
}
