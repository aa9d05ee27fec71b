import CRUDKitCore
import Foundation

/// How CRUDKit follows redirects, once, at the end of an `API`'s middleware chain (``RedirectFollower``), whatever
/// the transport: every transport sends one exchange and returns a 3xx as it is (``URLSessionTransport`` switches
/// URLSession's own handling off: on Linux it resolves some relative locations wrongly and re-sends 307/308 without
/// their body).
///
/// - 301 and 302 are followed for `GET` and `HEAD` only. For any other method the redirect response is returned
///   as it is, so a write is never silently turned into a body-less `GET` (browsers do that; an API client
///   must not).
/// - 303 See Other is followed with `GET` (`HEAD` stays `HEAD`) and no body, as RFC 9110 defines it: the write
///   has happened and the server points at its result.
/// - 307 and 308 are followed with the same method and the same body.
/// - The `Location` is resolved against the URL that answered (RFC 3986), so `/people/` keeps its slash; a
///   userinfo it brings (`http://user:pass@other/`) is dropped, and the caller's own never goes to another origin.
/// - When the scheme, host or port changes, every header that carries a credential is dropped: the standard ones
///   (`Authorization`, `Proxy-Authorization`, `Cookie`, `X-API-Key`, `Api-Key`, `X-Auth-Token`, `X-Access-Token`,
///   `X-CSRF-Token`, `X-XSRF-Token`), every header whose name names a secret by `Redaction.standard.secretNames`
///   (`X-Tenant-Secret`, `X-Custom-Auth`, `X-Session-Id`), and those the request names in
///   ``HTTPRequest/sensitiveHeaderNames`` (the headers the API's ``Redaction`` hides and a `TokenRefresher`'s
///   header).
/// - A 307 or 308 whose request has a body is followed to another origin only when the caller allows it
///   (``nextRequest(after:to:resendingBodyAcrossOrigins:)``); by default the redirect response is returned as the
///   final response, so a body is never sent to a host it was not addressed to.
/// - Other statuses, a missing `Location`, or a location that is not http(s) end the chain with that response.
package enum RedirectPolicy {
    /// The headers never sent to another origin, whatever the request says: the standard credential headers and
    /// the common API-key and token headers.
    package static let credentialHeaders = [
        "Authorization", "Cookie", "Proxy-Authorization", "X-API-Key", "Api-Key", "X-Auth-Token", "X-Access-Token",
        "X-CSRF-Token", "X-XSRF-Token",
    ]

    /// The header names of ``credentialHeaders``, lower-cased.
    private static let credentialHeaderNames = Set(credentialHeaders.map { $0.lowercased() })

    /// Whether header `name` of `request` carries a credential: one of ``credentialHeaders``, one the request
    /// marks in ``HTTPRequest/sensitiveHeaderNames``, or one whose name names a secret by
    /// `Redaction.standard.secretNames` (`X-Tenant-Secret`, `X-Session-Id`), whatever prepared the request. Such a
    /// header never goes to another origin, and the response cache keeps users apart by it.
    package static func carriesCredential(_ name: String, in request: HTTPRequest) -> Bool {
        let lowered = name.lowercased()
        return credentialHeaderNames.contains(lowered) || request.sensitiveHeaderNames.contains(lowered)
            || Redaction.standard.namesSecret(name)
    }

    /// The request to send after `response` answered `request`, or `nil` when the response is final.
    ///
    /// - Parameters:
    ///   - response: The response that answered `request`.
    ///   - request: The request as it was sent.
    ///   - resendingBodyAcrossOrigins: Whether a 307 or 308 may send the request's body to another origin; when
    ///     `false` (the default) such a redirect ends the chain with its response.
    ///   - redaction: The API's rules for secret headers: the headers they list or name with the API's own words are
    ///     credentials too, whichever stage added them; `nil` for the standard ones only.
    /// - Returns: The next request to send, with the resolved URL, method, body and headers; `nil` to stop.
    package static func nextRequest(
        after response: HTTPResponse, to request: HTTPRequest, resendingBodyAcrossOrigins: Bool = false,
        redaction: Redaction? = nil
    ) -> HTTPRequest? {
        switch response.status {
        case 301, 302, 303, 307, 308: break
        default: return nil
        }
        guard let location = response.headers["Location"]?.trimmingCharacters(in: .whitespaces),
            !location.isEmpty,
            let target = resolve(location, against: request.url)
        else { return nil }
        var next = request
        next.url = target
        switch response.status {
        case 303:
            if request.method != .head { next.method = .get }
            next.body = .none
            for name in ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"] {
                next.headers[name] = nil
            }
        case 301, 302:
            guard request.method == .get || request.method == .head else { return nil }
        default:
            break
        }
        if !sameOrigin(request.url, target) {
            if !resendingBodyAcrossOrigins, !next.body.isEmpty { return nil }
            for field in request.headers
            where carriesCredential(field.name, in: request) || redaction?.hidesHeader(field.name) == true {
                next.headers[field.name] = nil
            }
        }
        return next
    }

    /// Resolves `location` against `base`; `nil` unless the result is an absolute http(s) URL with a host.
    package static func resolve(_ location: String, against base: URL) -> URL? {
        let parsed =
            URL(string: location, relativeTo: base)
            ?? location.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed.union(["#", "%"]))
            .flatMap { URL(string: $0, relativeTo: base) }
        guard let url = parsed?.absoluteURL, let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host?.isEmpty == false
        else { return nil }
        // A userinfo the `Location` brings (`http://user:pass@other/`) is dropped: a server does not hand the client
        // credentials, and the URL would carry them into `response.url`. The caller's own stays on its own origin
        // (a relative location keeps it) and never goes to another, even when the `Location` spells it out.
        let callersOwn = url.user == base.user && url.password == base.password && sameOrigin(url, base)
        guard url.user != nil || url.password != nil, !callersOwn,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url }
        components.user = nil
        components.password = nil
        return components.url
    }

    /// Whether two URLs share scheme, host and port (default ports filled in).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int) {
            let scheme = url.scheme?.lowercased() ?? ""
            return (scheme, url.host?.lowercased() ?? "", url.port ?? (scheme == "https" ? 443 : 80))
        }
        return origin(a) == origin(b)
    }
}
