extension StandardMiddleware {
    /// The ``validation`` stage: the status check (a `.validate { }` middleware placed after it sees every
    /// response first).
    static func validate(
        _ request: HTTPRequest, _ context: MiddlewareContext, _ next: MiddlewareChain.Next
    ) async throws
        -> HTTPResponse
    {
        let response = try await next(request, context)
        guard response.isSuccess else { throw CRUDError.fromStatus(response) }
        return response
    }
}
