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

    /// The transport sends the request (into memory, a file, or steered by a handle) one exchange per hop, the
    /// redirects are followed here, its errors become ``CRUDError``s, and the response remembers the credentials
    /// sent (for descriptions).
    ///
    /// The one place every exchange of every transport passes (``transfer(_:_:)`` is the chain's only end), so what
    /// holds across hops lives here, in a ``RedirectFollower``: the API's cookies (a request without a `Cookie`
    /// header gets the API's jar's for its URL, hop by hop, and every hop's `Set-Cookie` fields go into the jar under
    /// the URL that answered), the redirects (at most ``APIConfiguration/maximumRedirects``) and one deadline across
    /// them (the request's ``HTTPRequest/deadline``).
    static func exchange(_ request: HTTPRequest, _ context: MiddlewareContext) async throws -> HTTPResponse {
        // The configuration's fields are read one by one: a copy of all of it costs a retain per field.
        let api = context.api
        let jar = api.configuration.cookieJar
        var request = request
        // A `Cookie` the jar gave (here, or in CacheMiddleware) is replaced hop by hop; the caller's own follows the
        // redirect policy's credential rules.
        let cookieFromJar =
            request.addCookies(from: jar)
            || request.headers["Cookie"].map { $0 == jar.cookieHeader(for: request.url) } == true
        let redirects = RedirectFollower(
            limit: api.configuration.maximumRedirects, jar: jar, cookieFromJar: cookieFromJar,
            redaction: api.configuration.redaction)
        let transport = api.configuration.transport
        var response: HTTPResponse
        do {
            switch context.transfer {
            case .memory(let observer):
                response = try await redirects.follow(request, holdingTheAnswer: true) {
                    try await transport.send($0, observer: observer)
                }
            case .handle(let control, let observer):
                response = try await control.exchange(
                    request, observer: observer, transport: transport, redirects: redirects)
            case .file(let destination, let observer):
                response = try await redirects.follow(request) {
                    try await transport.download($0, to: destination, observer: observer)
                }
            }
        } catch {
            throw Task.isCancelled ? CRUDError.cancelled : CRUDError.fromTransport(error, timeout: request.timeout)
        }
        response.recordCredentials(of: request, jar: jar, redaction: api.configuration.redaction)
        return response
    }
}

extension HTTPResponse {
    /// Records the credentials `request` sent, for descriptions to hide: its own and, after a redirect, the jar's
    /// cookies for the URL that answered (the last hop carried them), so a body that echoes them never shows them.
    mutating func recordCredentials(of request: HTTPRequest, jar: CookieJar, redaction: Redaction) {
        var sent = request
        if let answered = url, answered != request.url, let cookie = jar.cookieHeader(for: answered) {
            sent.headers.add(name: "Cookie", value: cookie)
        }
        sentCredentials = SentCredentials(of: sent, redaction: redaction)
    }
}

extension HTTPRequest {
    /// Adds `jar`'s `Cookie` header for this request's URL, unless the request carries a `Cookie` of its own.
    /// - Returns: Whether a `Cookie` header was added.
    @discardableResult
    mutating func addCookies(from jar: CookieJar) -> Bool {
        guard !headers.contains("Cookie"), let cookie = jar.cookieHeader(for: url) else { return false }
        headers.add(name: "Cookie", value: cookie)
        return true
    }
}

extension HTTPMethod {
    /// Whether the method only reads (`GET`, `HEAD`, `OPTIONS`, `TRACE`): it changes nothing a cache holds.
    var isRead: Bool {
        self == .get || self == .head || self == .options || self == "TRACE"
    }
}
