import CRUDKit
import Foundation

// Laravel 8–11 as an `InMemoryBackend` style: `Route::apiResource` with Eloquent, API Resources and FormRequest
// validation, served under `/api`.

extension InMemoryBackend.Style {
    /// Laravel 8–11 as an API built the usual way answers: no trailing slash; single objects answered as
    /// `{"data": {…}}` (``responseKey``) to bare request bodies (a wrapped body is read as it is, so a validator
    /// refuses it); lists as `{"data", "links", "meta"}` for `?page=&per_page=` (see
    /// ``InMemoryBackend/Pagination/laravel(perPage:maxPerPage:)``); 201 with the object and no `Location`; a PUT
    /// that keeps the stored value of a key it leaves out (`$person->update($request->validated())`); DELETE 204;
    /// validation failures as 422 `{"message": "The given data was invalid.", "errors": {"age": ["…"]}}`; a missing
    /// model as 404 `{"message": "No query results for model [App\\Models\\Person] 7"}`.
    ///
    /// A request without `Accept: application/json` (or another JSON type) is answered as Laravel answers a
    /// browser: a failed validation is a **302** to the previous page (the `Referer`, else the site's root) and
    /// every other error an HTML page.
    public static let laravel: Self = {
        var style = Self(
            trailingSlash: .never, pagination: .laravel(), errors: .laravel, createAnswer: .object,
            putOmissions: .kept, patchMergesObjects: false, entityTags: .none, sendsLastModified: false,
            notModified: .never, honoursIfMatch: false, honoursIfUnmodifiedSince: false,
            timestamps: InMemoryBackend.Timestamps(created: "created_at", updated: "updated_at", fractionDigits: 6))
        style.responseKey = "data"
        return style
    }()
}

extension InMemoryBackend {
    /// `response` as a Laravel app sends it: a single object wrapped under the style's ``Style/responseKey``,
    /// errors in Laravel's shape, and (for a request that does not accept JSON) errors as a browser gets them.
    static func laravelAnswer(
        _ response: HTTPResponse, to recorded: RecordedRequest, style: Style, state: State
    ) -> HTTPResponse {
        let request = recorded.request
        let resolved = resolve(recorded.target, request: request, in: state)
        if (200..<300).contains(response.status) {
            guard let key = style.responseKey, resolved?.id != nil || request.method == .post,
                let object = try? JSON(data: response.body), object.object != nil
            else { return response }
            return reencoded(response, ["\(key)": object])
        }
        guard style.errors == .laravel, response.status >= 400 else { return response }
        guard acceptsJSON(request) else { return browserAnswer(response, to: request) }
        guard let detail = (try? JSON(data: response.body))?["detail"].string else { return response }
        var message = detail
        if response.status == 404 {
            if let resolved, let id = resolved.id {
                message = "No query results for model [App\\Models\\\(modelName(resolved.collection))] \(id)"
            } else {
                message = "The route \(recorded.target.segments.joined(separator: "/")) could not be found."
            }
        }
        return reencoded(response, ["message": .string(message)])
    }

    /// Whether the request asks for JSON, as Laravel's `Request::wantsJson()` reads `Accept`.
    private static func acceptsJSON(_ request: HTTPRequest) -> Bool {
        guard let accept = request.headers["Accept"]?.lowercased() else { return false }
        let first = accept.split(separator: ",").first.map(String.init) ?? accept
        return first.contains("/json") || first.contains("+json")
    }

    /// A failed answer as Laravel gives it to a browser: a failed validation redirects back (302), any other
    /// error is an HTML page.
    private static func browserAnswer(_ response: HTTPResponse, to request: HTTPRequest) -> HTTPResponse {
        if response.status == 422 {
            var root = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
            root?.percentEncodedPath = "/"
            root?.percentEncodedQuery = nil
            let back = request.headers["Referer"] ?? root?.string ?? "/"
            let page =
                "<!DOCTYPE html><html><head><meta http-equiv=\"refresh\" content=\"0;url='\(back)'\" />"
                + "<title>Redirecting to \(back)</title></head><body>Redirecting to \(back).</body></html>"
            return HTTPResponse(
                status: 302, headers: ["Location": back, "Content-Type": "text/html; charset=UTF-8"],
                body: Data(page.utf8))
        }
        let page =
            "<!DOCTYPE html><html lang=\"en\"><head><title>Error</title></head><body><div>"
            + "\(response.status)</div></body></html>"
        return HTTPResponse(
            status: response.status, headers: ["Content-Type": "text/html; charset=UTF-8"], body: Data(page.utf8))
    }

    /// `response` with `body` as its JSON body (its other headers kept).
    private static func reencoded(_ response: HTTPResponse, _ body: JSON) -> HTTPResponse {
        var headers = response.headers
        headers["Content-Type"] = nil
        return jsonResponse(response.status, body, headers: headers)
    }

    /// The Eloquent model name of a collection: `people` → `Person`, `blog_posts` → `BlogPost`.
    static func modelName(_ collection: Collection) -> String {
        let last =
            collection.segments.reversed().lazy.compactMap { segment -> String? in
                if case .literal(let text) = segment { return text }
                return nil
            }.first ?? "model"
        let irregular = ["people": "person", "children": "child", "men": "man", "women": "woman"]
        var singular = irregular[last] ?? last
        if irregular[last] == nil {
            if singular.hasSuffix("ies") {
                singular = String(singular.dropLast(3)) + "y"
            } else if singular.hasSuffix("s"), !singular.hasSuffix("ss") {
                singular.removeLast()
            }
        }
        return singular.split(whereSeparator: { $0 == "_" || $0 == "-" }).map {
            $0.prefix(1).uppercased() + $0.dropFirst()
        }
        .joined()
    }

    /// One page of `items` as Laravel's length-aware paginator answers it through an API Resource collection:
    /// `{"data": […], "links": {"first", "last", "prev", "next"}, "meta": {"current_page", "from", "last_page",
    /// "links", "path", "per_page", "to", "total"}}`. The links carry only `page` (Laravel drops the rest of the
    /// query unless the app calls `withQueryString()`); a page below 1 or not a number is page 1.
    static func laravelPage(
        _ items: PageItems, perPage defaultSize: Int, maxPerPage: Int, target: RequestTarget, url: URL
    ) throws(QueryNumberError) -> HTTPResponse {
        let asked = try queryNumber(target, "per_page").get() ?? 0
        let size = asked > 0 ? min(asked, max(maxPerPage, 1)) : max(defaultSize, 1)
        let lastPage = items.isEmpty ? 1 : (items.count - 1) / size + 1
        let page = max(try queryNumber(target, "page").get() ?? 1, 1)
        let start = saturatedProduct(page - 1, size)
        let slice = slice(items, from: start, count: size)
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.percentEncodedQuery = nil
        components?.fragment = nil
        let path = components?.string ?? url.absoluteString
        let pageURL = { (number: Int) -> JSON in .string("\(path)?page=\(number)") }
        let previous: JSON = page > 1 ? pageURL(min(page - 1, lastPage)) : .null
        let next: JSON = page < lastPage ? pageURL(page + 1) : .null
        let pageLinks: [JSON] = [
            ["url": previous, "label": "&laquo; Previous", "active": false],
            ["url": pageURL(page), "label": .string(String(page)), "active": true],
            ["url": next, "label": "Next &raquo;", "active": false],
        ]
        let meta: JSON = [
            "current_page": JSON(page), "from": slice.isEmpty ? .null : JSON(start + 1),
            "last_page": JSON(lastPage), "links": .array(pageLinks), "path": .string(path),
            "per_page": JSON(size), "to": slice.isEmpty ? .null : JSON(start + slice.count),
            "total": JSON(items.count),
        ]
        let links: JSON = ["first": pageURL(1), "last": pageURL(lastPage), "prev": previous, "next": next]
        return jsonResponse(200, ["data": .array(Array(slice)), "links": links, "meta": meta])
    }

    /// A validation failure in Laravel's shape: 422 `{"message": "The given data was invalid.", "errors": {…}}`.
    static func laravelValidation(_ fields: [(String, [String])]) -> JSON {
        let members = fields.map { ($0.0, JSON.array($0.1.map(JSON.string))) }
        return ["message": "The given data was invalid.", "errors": .object(JSON.Object(members))]
    }
}
