import CRUDKitCore
import CRUDKitHTTP
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
    ///
    /// The one place every exchange of every transport passes (``transfer(_:_:)`` is the chain's only end), so the
    /// API's cookies are kept here: a request without a `Cookie` header gets the API's jar's for its URL, and the
    /// response's `Set-Cookie` fields go into the jar under the URL that answered.
    static func exchange(_ request: HTTPRequest, _ context: MiddlewareContext) async throws -> HTTPResponse {
        // The configuration's fields are read one by one: a copy of all of it costs a retain per field.
        let api = context.api
        let jar = api.configuration.cookieJar
        var request = request
        request.addCookies(from: jar)
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
        jar.store(from: response.headers, for: response.url ?? request.url)
        response.sentCredentials = SentCredentials(of: request, redaction: api.configuration.redaction)
        return response
    }
}

extension HTTPRequest {
    /// Adds `jar`'s `Cookie` header for this request's URL, unless the request carries a `Cookie` of its own.
    mutating func addCookies(from jar: CookieJar) {
        if !headers.contains("Cookie"), let cookie = jar.cookieHeader(for: url) {
            headers.add(name: "Cookie", value: cookie)
        }
    }
}

extension HTTPMethod {
    /// Whether the method only reads (`GET`, `HEAD`, `OPTIONS`, `TRACE`): it changes nothing a cache holds.
    var isRead: Bool {
        self == .get || self == .head || self == .options || self == "TRACE"
    }
}
