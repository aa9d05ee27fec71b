import Foundation

/// What a family of servers expects, set in one go: trailing slash, query list style, JSON coding, pagination, error
/// body shape, authorization scheme, and how `PUT` and `PATCH` bodies are written.
///
/// The one place these settings live: an API has its conventions (``APIConfiguration/conventions``), and a model may
/// change some of them for its own calls (``CRUDResource/conventions(from:)``); what the model changes wins, field
/// by field, and the rest follows the API.
///
/// ```swift
/// let api = API(baseURL: URL(string: "http://127.0.0.1:8000")!, conventions: .djangoREST, token: key)
/// ```
///
/// | preset | trailing slash | lists in queries | pagination | errors | `Authorization` | nested object in `PATCH` |
/// |---|---|---|---|---|---|---|
/// | ``standard`` | as given | `tags[]=a` | ``Pagination/automatic`` | automatic | `Bearer` | member by member |
/// | ``djangoREST`` | always (`/12/`) | `tags=a&tags=b` | `{count, next, previous, results}` | DRF | `Token` | whole |
/// | ``rails`` | never | `tags[]=a` | automatic (`Link`, `X-Total-Count` or `Total`) | Rails | `Bearer` | whole |
/// | ``fastAPI`` | never | `tags=a&tags=b` | automatic (`Link`, `x-total-count`) | `detail` | `Bearer` | whole |
/// | ``vapor`` | never | `tags[]=a` | `{items, metadata: {page, per, total}}` | Vapor `reason` | `Bearer` | whole |
/// | ``jsonAPI`` | never | `tags[]=a` | `data`, `links.next`, `meta.pagination.count` or `meta.total` | JSON:API | `Bearer` | changes inside `attributes` |
/// | ``laravel`` | never | `tags[]=a` | `{data, links, meta: {current_page, last_page, per_page, total}}` | Laravel `message`, `errors` | `Bearer` | whole |
public struct APIConventions: Sendable, Hashable {
    /// A name for logs and descriptions.
    public var name: String
    /// Whether URLs built from paths end with `/` (absolute URLs are sent as given).
    public var trailingSlash: TrailingSlash
    /// How lists in query parameters are written: `tags[]=a&tags[]=b` (the default) or `tags=a&tags=b` (what
    /// Django REST framework filters read).
    public var queryStyle: FormParameters.ArrayStyle
    /// How lists are paginated.
    public var pagination: Pagination
    /// The error body shape ``API/serverErrors(in:)`` reads.
    public var errorShape: ServerErrorShape
    /// The scheme of the `Authorization` header an API's `token:` is sent in: `Bearer`, or `Token` for DRF.
    public var authorizationScheme: String
    /// What a `nil` optional property of an `Encodable` model becomes in the body of a `PUT`
    /// (`update()`, ``Updatable/update(from:)->Self``). Default ``JSONCoding/NilEncoding/null`` in every preset; say
    /// ``JSONCoding/NilEncoding/omit`` for a server that treats a `PUT` as a partial update and must not see `null`s.
    ///
    /// A `PUT` replaces the whole resource, so a property you set to `nil` must clear the field: Django REST
    /// framework and Rails keep the stored value of a key the body leaves out, so leaving it out would silently
    /// keep the old value. A `POST` always leaves `nil` optionals out, so the server's defaults apply; a `PATCH`
    /// (``Updatable/update(from:)->Self``) sends `null` for what became `nil`; ``JSONAttribute/absent`` is
    /// never sent.
    public var putNilEncoding: JSONCoding.NilEncoding
    /// Whether a `PATCH` (``Updatable/update(from:)->Self``) diffs a changed nested object member by member
    /// (`true`, ``standard``: a JSON Merge Patch, RFC 7396, for servers that merge it) or sends the changed
    /// top-level field whole (`false`, every framework preset).
    ///
    /// Rails, Django REST framework, FastAPI and Vapor replace a nested value (a JSON column, a nested struct) with
    /// the one a `PATCH` carries: sent member by member, `{"settings": {"theme": "light"}}` would drop every other
    /// member of `settings` on the server. Sent whole, the server keeps exactly what the model holds.
    public var diffsNestedObjects: Bool
    /// Whether `Decimal` properties of the bodies an ``API`` encodes (models, `.json(_:)` bodies) are written as
    /// strings of their digits (`"12.50"`, ``JSONCoding/writesDecimalsAsStrings``), whatever coding they use.
    ///
    /// `true` for ``djangoREST``, ``rails`` and ``fastAPI``: they send decimals as strings and read a JSON number as
    /// a `Double` first, which rounds an amount of more than 15 significant digits (DRF stored
    /// `123456789012345678.91` as `123456789012345680.00`). `false` for the others (Vapor's `JSONDecoder` reads a
    /// `Decimal` only from a number).
    public var writesDecimalsAsStrings: Bool
    /// How `Codable` models become bodies and answers become models: ``JSONCoding/default`` (snake_case keys on the
    /// wire, ISO-8601 dates) in every preset but ``vapor``; ``JSONCoding/plain`` switches both off.
    public var coding: JSONCoding
    /// The key every answer wraps a single object in while request bodies stay bare (Laravel's API Resources:
    /// `{"data": {…}}`), unless a model names its own root key (``CRUDResource/objectKey``); `nil` (every preset
    /// but ``laravel``) for none. An answer without it is read as it is.
    public var responseKey: String?
    /// How models travel in bodies: their own JSON objects (``ResourceFormat/plain``, every preset but ``jsonAPI``)
    /// or JSON:API resource objects (``ResourceFormat/jsonAPI``).
    public var format: ResourceFormat = .plain
    /// The media type an ``API`` sends in `Accept` and as the `Content-Type` of JSON bodies, unless a request's
    /// headers name their own: `application/json`, or `application/vnd.api+json` (without parameters, as the
    /// JSON:API specification requires) for ``jsonAPI``.
    public var mediaType = "application/json"

    /// Creates conventions.
    /// - Parameters:
    ///   - name: A name for logs.
    ///   - trailingSlash: Whether built URLs end with `/`.
    ///   - queryStyle: How lists in queries are written.
    ///   - pagination: How lists are paginated.
    ///   - errorShape: The error body shape.
    ///   - authorizationScheme: The `Authorization` scheme for tokens.
    ///   - putNilEncoding: What a `nil` optional becomes in a `PUT` body (`null` unless told otherwise).
    ///   - coding: The server's keys and dates.
    ///   - diffsNestedObjects: Whether a `PATCH` diffs nested objects member by member (`true`, for a server that
    ///     merges them) or sends a changed nested object whole.
    ///   - writesDecimalsAsStrings: Whether `Decimal` properties are written as strings of their digits.
    ///   - responseKey: The key answers wrap a single object in, if any.
    public init(
        name: String,
        trailingSlash: TrailingSlash = .asGiven,
        queryStyle: FormParameters.ArrayStyle = .brackets,
        pagination: Pagination = .automatic,
        errorShape: ServerErrorShape = .automatic,
        authorizationScheme: String = "Bearer",
        putNilEncoding: JSONCoding.NilEncoding = .null,
        coding: JSONCoding = .default,
        diffsNestedObjects: Bool = true,
        writesDecimalsAsStrings: Bool = false,
        responseKey: String? = nil
    ) {
        self.name = name
        self.trailingSlash = trailingSlash
        self.queryStyle = queryStyle
        self.pagination = pagination
        self.errorShape = errorShape
        self.authorizationScheme = authorizationScheme
        self.putNilEncoding = putNilEncoding
        self.coding = coding
        self.diffsNestedObjects = diffsNestedObjects
        self.writesDecimalsAsStrings = writesDecimalsAsStrings
        self.responseKey = responseKey
    }

    /// What an ``API`` assumes unless told otherwise: paths as given, automatic pagination and error shapes,
    /// `Bearer` tokens.
    public static let standard = APIConventions(name: "standard")

    /// Django REST framework: a trailing slash on every path (DRF redirects without one, and a redirected write
    /// loses its body), repeated keys for lists (`?tags=a&tags=b`, what django-filter reads), the page-number
    /// envelope `{count, next, previous, results}`, DRF's error bodies (`{"field": ["…"]}`,
    /// `non_field_errors`, `detail`), and `Authorization: Token <key>`.
    public static let djangoREST = APIConventions(
        name: "djangoREST", trailingSlash: .always, queryStyle: .repeatedKeys, pagination: .djangoREST,
        errorShape: .djangoREST, authorizationScheme: "Token", diffsNestedObjects: false,
        writesDecimalsAsStrings: true)

    /// Rails: no trailing slash, bracketed lists (`tags[]=a`), ``Pagination/rails`` (a `Link` header with the
    /// total in `X-Total-Count` or api-pagination's `Total`, or an envelope), Rails' `{"errors": {"field": ["…"]}}`,
    /// `Bearer` tokens.
    public static let rails = APIConventions(
        name: "rails", trailingSlash: .never, pagination: .rails, errorShape: .rails, diffsNestedObjects: false,
        writesDecimalsAsStrings: true)

    /// FastAPI: no trailing slash, repeated keys for lists (`?tags=a&tags=b`, what `List[str] = Query()` reads),
    /// ``Pagination/automatic`` (a plain array with a `Link` header for `?offset=&limit=` and the total in
    /// `x-total-count`, followed link by link so a server-side `limit` cap never cuts the walk short), FastAPI's
    /// 422 `{"detail": [{"loc": […], "msg": …}]}` errors, `Bearer` tokens.
    public static let fastAPI = APIConventions(
        name: "fastAPI", trailingSlash: .never, queryStyle: .repeatedKeys, errorShape: .fastAPI,
        diffsNestedObjects: false, writesDecimalsAsStrings: true)

    /// Vapor 4 with Fluent: no trailing slash, bracketed lists (`tags[]=a`), ``Pagination/vapor``
    /// (`{"items", "metadata": {"page", "per", "total"}}` for `?page=&per=`), ``JSONCoding/vapor`` (keys as declared,
    /// ISO-8601 dates in whole seconds), errors `{"error": true, "reason": "…"}` read as the message, `Bearer`
    /// tokens.
    ///
    /// Create answers 200 with the object (no `Location`): that is the created value. Ids are usually `UUID`s,
    /// written upper-case, as `UUID`'s own `description` writes them. `update()` (PUT) replaces the whole object,
    /// so it clears what you set to `nil`. `update(from: original)` (PATCH, ``Updatable/update(from:)->Self``) sends
    /// only the changes, but a Vapor `PATCH` DTO of optionals usually ignores `null`: it can set fields, not clear
    /// them; clear a field with `update()`.
    public static let vapor = APIConventions(
        name: "vapor", trailingSlash: .never, pagination: .vapor, coding: .vapor, diffsNestedObjects: false)

    /// JSON:API (jsonapi.org; checked against Django REST framework with djangorestframework-jsonapi 8.1):
    /// `Accept` and `Content-Type: application/vnd.api+json` (``mediaType``), models written and read as resource
    /// objects (``ResourceFormat/jsonAPI``: `{"data": {"type", "id", "attributes", "relationships"}}`, types and
    /// relationships from ``JSONAPIResource``), no trailing slash, ``Pagination/jsonAPI`` (`links.next`, the total
    /// from `meta.pagination.count` or `meta.total`), errors as `errors[].source.pointer` (`/data/attributes/age`
    /// is the field `age`), `Bearer` tokens.
    ///
    /// `update(from:)` sends a `PATCH` with `type`, `id` and only what changed inside `attributes` and
    /// `relationships`; `update()` sends a `PATCH` with every attribute, as JSON:API has no `PUT` (servers answer
    /// 405). A changed nested attribute is sent whole.
    public static let jsonAPI = APIConventions(
        name: "jsonAPI", trailingSlash: .never, pagination: .jsonAPI, errorShape: .jsonAPI,
        diffsNestedObjects: false
    ).with {
        $0.format = .jsonAPI
        $0.mediaType = "application/vnd.api+json"
    }

    /// Laravel 8–11 (`Route::apiResource`, Eloquent, API Resources, FormRequest validation; base URL with its `/api`
    /// prefix): no trailing slash, bracketed lists (`tags[]=a`, what PHP reads), single objects answered as
    /// `{"data": {…}}` (``responseKey``) to bare request bodies, ``Pagination/laravel`` (`{data, links, meta}` for
    /// `?page=&per_page=`), errors `422 {"message": …, "errors": {"age": ["…"]}}` and `404 {"message": …}` read
    /// as field errors and messages, `Bearer` tokens (Sanctum), decimals as strings (PHP reads a JSON number as a
    /// float).
    ///
    /// Every request says `Accept: application/json` (an ``API`` sends it unless told otherwise): without it
    /// Laravel answers errors as HTML pages and a failed validation as a 302 to the previous page. Dates
    /// (`2026-11-27T07:56:34.000000Z`) and snake_case keys are the default ``JSONCoding``. Create answers 201
    /// without `Location`; `update()` (PUT) is a partial update on Laravel (a key left out keeps its value), so a
    /// property set to `nil` is sent as `null` to clear it; DELETE answers 204. A 429 carries `Retry-After`, which
    /// a ``RetryPolicy`` honours.
    public static let laravel = APIConventions(
        name: "laravel", trailingSlash: .never, pagination: .laravel, diffsNestedObjects: false,
        writesDecimalsAsStrings: true, responseKey: "data")

    /// A copy with the changes `change` makes: how a model changes some of its API's conventions
    /// (``CRUDResource/conventions(from:)``), or an API some of a preset's.
    ///
    /// ```swift
    /// let api = API(baseURL: base, conventions: .djangoREST.with { $0.pagination = .offset(limit: 50) })
    /// ```
    /// - Parameter change: Changes the copy.
    /// - Returns: The changed copy.
    public func with(_ change: (inout APIConventions) throws -> Void) rethrows -> APIConventions {
        var copy = self
        try change(&copy)
        return copy
    }

    /// ``coding`` as request bodies are written with it: decimals as strings when ``writesDecimalsAsStrings`` says
    /// so.
    var bodyCoding: JSONCoding {
        guard writesDecimalsAsStrings, !coding.writesDecimalsAsStrings else { return coding }
        var coding = coding
        coding.writesDecimalsAsStrings = true
        return coding
    }

    /// The `Authorization` header for `token` in this convention's scheme (`Token abc…` for DRF).
    /// - Parameter token: The token or key.
    /// - Returns: One header.
    package func authorization(token: String) -> HTTPHeaders {
        ["Authorization": "\(authorizationScheme) \(token)"]
    }
}

extension API {
    /// What the server said in the body of a failed answer, read in this API's
    /// ``APIConventions/errorShape``; `nil` when `error` has no response or its body holds nothing readable.
    /// - Parameter error: A failure of one of this API's requests.
    /// - Returns: The field errors and messages.
    public func serverErrors(in error: any Error) -> ServerErrorDetails? {
        guard let response = (error as? CRUDError)?.response else { return nil }
        return ServerErrorDetails(response: response, shape: configuration.conventions.errorShape)
    }
}
