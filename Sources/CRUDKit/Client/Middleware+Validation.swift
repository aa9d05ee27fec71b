extension StandardMiddleware {
    /// The ``validation`` stage: the interceptors' `validate` on every response, then the status check.
    static func validate(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareChain.Next
    ) async throws
        -> HTTPResponse
    {
        let response = try await next(request, context)
        let interceptors = context.api.configuration.interceptors
        if !interceptors.isEmpty {
            let interceptorContext = context.interceptorContext
            do {
                for interceptor in interceptors {
                    try interceptor.validate(response, for: request, context: interceptorContext)
                }
            } catch {
                throw CRUDError.fromValidator(error, response: response)
            }
        }
        guard response.isSuccess else { throw CRUDError.fromStatus(response) }
        return response
    }
}
