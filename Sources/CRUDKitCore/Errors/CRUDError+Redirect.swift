import Foundation

extension CRUDError {
    /// How to fix the request when the server redirected it instead of answering: CRUDKit follows a redirect of
    /// a `GET` or `HEAD` only (a redirected write would lose its body or be sent twice), so a write that meets
    /// one fails with ``httpStatus(_:)`` and this advice. `nil` for any other error.
    ///
    /// When the redirect only adds or removes the trailing slash (Django's `APPEND_SLASH` answers
    /// `POST /people` with `301 Location: /people/`), the advice names the setting that fixes it:
    /// `APIConfiguration.trailingSlash` (or the `APIConventions.djangoREST` preset, or a model's
    /// `CRUDResource.trailingSlash`).
    ///
    /// ```swift
    /// } catch let error as CRUDError {
    ///     print(error.recoverySuggestion ?? "")   // "The server wants paths with a trailing slash …"
    /// }
    /// ```
    public var recoverySuggestion: String? {
        guard case .httpStatus(let response) = self else { return nil }
        return Self.redirectAdvice(for: response)
    }

    /// The advice for a redirect answer (a 3xx with a `Location`), or `nil` for any other response.
    static func redirectAdvice(for response: HTTPResponse) -> String? {
        guard (300..<400).contains(response.status), response.status != 304,
            let location = response.headers["Location"], !location.isEmpty
        else { return nil }
        let target = response.url.flatMap { URL(string: location, relativeTo: $0)?.absoluteURL }
        if let asked = response.url.map(Self.rawPath), let wanted = target.map(Self.rawPath), asked != wanted {
            if wanted == asked + "/" {
                return "The server wants paths with a trailing slash (it redirected to \(wanted)), and a redirected "
                    + "write would lose its body, so it was not followed. Set the API's conventions.trailingSlash to "
                    + ".always (or use conventions: .djangoREST for Django REST framework), or a model's (its "
                    + "`conventions(from:)` returning `api.with { $0.trailingSlash = .always }`)."
            }
            if asked == wanted + "/" {
                return "The server wants paths without a trailing slash (it redirected to \(wanted)), and a "
                    + "redirected write would lose its body, so it was not followed. Set the API's "
                    + "conventions.trailingSlash to .never, or a model's (its `conventions(from:)` returning "
                    + "`api.with { $0.trailingSlash = .never }`)."
            }
        }
        let place = target.map { url in
            url.host == response.url?.host
                ? rawPath(url) : "\(url.scheme ?? "https")://\(url.host ?? "")\(rawPath(url))"
        }
        let shown = place ?? URL(string: location).map(rawPath) ?? "another address"
        return "The server redirected the request (to \(shown)); only GET and HEAD are followed, "
            + "because a redirected write would lose its body. Send it to the final address: if it only adds a "
            + "trailing slash, set the API's trailingSlash to .always (conventions: .djangoREST does); otherwise "
            + "change the API's baseURL or the model's path."
    }

    /// The path of `url` as sent, trailing slash kept (`URL.path` drops it).
    private static func rawPath(_ url: URL) -> String {
        URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
    }
}
