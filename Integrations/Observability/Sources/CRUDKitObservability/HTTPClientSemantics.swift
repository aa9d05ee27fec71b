import CRUDKit
import Foundation
import Instrumentation

/// Names and values of OpenTelemetry's HTTP client semantic conventions, shared by the three stages; none of them
/// carries an id, a query or a credential (the path is only ever the template, ``MiddlewareContext/urlTemplate``).
enum HTTPClientSemantics {
    static let method = "http.request.method"
    static let methodOriginal = "http.request.method_original"
    static let status = "http.response.status_code"
    static let serverAddress = "server.address"
    static let serverPort = "server.port"
    static let errorType = "error.type"
    static let urlFull = "url.full"
    static let urlTemplate = "url.template"
    static let resendCount = "http.request.resend_count"
    static let responseBodySize = "http.response.body.size"
    /// Where a followed redirect led: the URL that gave the answer (redacted), its host and port. OpenTelemetry has
    /// no name for them (it traces each hop as a span of its own; CRUDKit's transports follow redirects inside one
    /// attempt, out of the middleware's sight).
    static let redirectURLFull = "crudkit.redirect.url.full"
    static let redirectServerAddress = "crudkit.redirect.server.address"
    static let redirectServerPort = "crudkit.redirect.server.port"

    /// The methods the conventions name; any other is `_OTHER` (an attacker-chosen method must not make a series).
    private static let knownMethods: Set<String> = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
    ]

    /// The method as a label value: a known method, else `_OTHER`.
    static func method(_ request: HTTPRequest) -> String {
        let raw = request.method.rawValue
        return knownMethods.contains(raw) ? raw : "_OTHER"
    }

    /// The span name's method: a known method, else `HTTP` (OpenTelemetry's name for a span of any other method).
    static func spanMethod(_ method: String) -> String { method == "_OTHER" ? "HTTP" : method }

    /// A status as a label value: a status of RFC 9110's range (100–599) as its number, any other number a server
    /// sent (`999`, `000`) `_OTHER`, so that a hostile server cannot make up to 900 series per route.
    static func statusLabel(_ status: Int) -> String { (100...599).contains(status) ? String(status) : "_OTHER" }

    /// The size of `response`'s body in bytes: what is in memory, or, when the body went elsewhere (a download to a
    /// file answers with an empty body), the `Content-Length` the server declared for it — OpenTelemetry's
    /// `http.response.body.size` is the size transferred. A `HEAD` answer, a 1xx, 204 or 304 has no body.
    static func responseBodySize(_ response: HTTPResponse, for request: HTTPRequest) -> Int {
        guard response.body.isEmpty, request.method.rawValue != "HEAD", response.status >= 200,
            response.status != 204, response.status != 304,
            let declared = response.headers["Content-Length"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
            declared > 0
        else { return response.body.count }
        return declared
    }

    /// The host the request goes to, without credentials or port.
    static func serverAddress(_ url: URL) -> String { url.host ?? "" }

    /// The port the request goes to, the scheme's default when the URL names none.
    static func serverPort(_ url: URL) -> Int {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }

    /// The URL that gave `response` when it is not the one `request` was sent to (the transport followed a
    /// redirect); `nil` otherwise. Only the scheme, host, port and path count: a query is not a new place.
    static func redirectedURL(of response: HTTPResponse, for request: HTTPRequest) -> URL? {
        guard let answered = response.url else { return nil }
        let sent = request.url
        if answered.scheme?.lowercased() == sent.scheme?.lowercased(),
            answered.host?.lowercased() == sent.host?.lowercased(),
            serverPort(answered) == serverPort(sent), answered.path == sent.path
        {
            return nil
        }
        return answered
    }

    /// `error.type`: the status of a 4xx/5xx answer, `_OTHER` for a status outside 100–599, else a low-cardinality
    /// name of the failure; `nil` on success.
    static func errorType(status: Int?, failure: CRUDError?) -> String? {
        if let status = failure?.status ?? status, status >= 400 || status < 100 { return statusLabel(status) }
        guard let failure else { return nil }
        switch failure {
        case .invalidRequest: return "invalid_request"
        case .transport(let transport):
            switch transport.reason {
            case .cannotConnect: return "cannot_connect"
            case .hostNotFound: return "host_not_found"
            case .connectionLost: return "connection_lost"
            case .tls: return "tls"
            case .protocolViolation: return "protocol_violation"
            default: return "transport"
            }
        case .timedOut: return "timeout"
        case .cancelled: return "cancelled"
        case .responseTooLarge: return "response_too_large"
        case .tooManyRedirects: return "too_many_redirects"
        case .decoding: return "decoding"
        case .incompleteList: return "incomplete_list"
        case .httpStatus, .conflict, .validation: return "validation"
        case .writeAccepted: return "write_accepted"
        }
    }

    /// `error.type` of an error thrown down the chain: a ``CRUDError``'s name, else the error's type name (never its
    /// description, which may hold anything).
    static func errorType(_ failure: any Error) -> String {
        if let crud = failure as? CRUDError { return errorType(status: nil, failure: crud) ?? "_OTHER" }
        if Task.isCancelled || failure is CancellationError { return "cancelled" }
        return String(describing: type(of: failure))
    }
}

/// Writes propagation headers (W3C `traceparent`, …) into a request's headers for an `Instrument`.
struct HTTPHeadersInjector: Injector {
    /// The request's headers, and the names of the fields injected into them (lower-cased).
    struct Carrier {
        var headers: HTTPHeaders
        var names: Set<String>
    }

    func inject(_ value: String, forKey key: String, into carrier: inout Carrier) {
        carrier.headers[key] = value
        carrier.names.insert(key.lowercased())
    }
}
