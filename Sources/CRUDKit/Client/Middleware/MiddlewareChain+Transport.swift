import Foundation

extension MiddlewareChain {
    /// The end of every chain: a read a ``CoalescingMiddleware`` marked is shared with identical reads in flight,
    /// then the transport sends the request.
    static func transfer(_ request: HTTPRequest, _ context: MiddlewareContext) async throws -> HTTPResponse {
        guard context.sharesAtTransport else { return try await exchange(request, context) }
        return try await CoalescingMiddleware.share(request, context, send: exchange)
    }

    /// The transport sends the request (into memory, a file, or steered by a handle), its errors become
    /// ``CRUDError``s, and the response remembers the credentials sent (for descriptions).
    static func exchange(_ request: HTTPRequest, _ context: MiddlewareContext) async throws -> HTTPResponse {
        // The configuration's fields are read one by one: a copy of all of it costs a retain per field.
        let api = context.api
        var response: HTTPResponse
        do {
            switch context.transfer {
            case .memory(let observer):
                response = try await api.configuration.transport.send(request, observer: observer)
            case .handle(let control, let observer):
                response = try await control.exchange(
                    request, observer: observer, transport: api.configuration.transport)
            case .file(let destination, let observer):
                response = try await api.configuration.transport.download(request, to: destination, observer: observer)
            }
        } catch {
            throw Task.isCancelled ? CRUDError.cancelled : CRUDError.fromTransport(error, timeout: request.timeout)
        }
        response.sentCredentials = SentCredentials(of: request, redaction: api.configuration.redaction)
        return response
    }
}

extension HTTPMethod {
    /// Whether the method only reads (`GET`, `HEAD`, `OPTIONS`, `TRACE`): it changes nothing a cache holds.
    var isRead: Bool {
        self == .get || self == .head || self == .options || self == "TRACE"
    }
}
