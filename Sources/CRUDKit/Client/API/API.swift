import Dispatch
import Foundation

/// A server and how to talk to it: base URL, default headers and query, JSON coders, transport, middleware,
/// retry policy and logging.
///
/// `API` is an immutable, `Sendable` reference: every request keeps the `API` it started with, so replacing the
/// shared default (``API/shared``) while
/// requests run is safe. It is a class rather than a struct because a request pipeline passes it around on every
/// step and keeps it for the request's lifetime: one reference, never a copy of a dozen fields. Read settings
/// from ``configuration`` (`api.configuration.baseURL`); change them with ``with(_:)``, which returns a new `API`.
///
/// ```swift
/// let api = API(baseURL: URL(string: "https://api.example.com/v1")!, headers: ["Accept-Language": "en"])
/// let me: Person = try await api.get("me")
/// let staging = api.with { $0.baseURL = URL(string: "https://staging.example.com/v1")! }
/// ```
public final class API: Sendable {
    /// Every setting of this API.
    public let configuration: APIConfiguration
    /// Builds this API's URLs (base URL, trailing-slash rule and query style applied).
    package let paths: PathBuilder
    /// The middleware chain every request goes through (``APIConfiguration/middleware``, resolved once).
    let chain: MiddlewareChain
    /// This API's reads in flight, which its ``CoalescingMiddleware`` shares (two APIs never share one).
    let coalescer = RequestCoalescer()

    /// Creates an API from a configuration.
    public init(configuration: APIConfiguration) {
        ServerErrorDetails.describesErrors
        self.configuration = configuration
        self.chain = MiddlewareChain(configuration.middleware)
        self.paths = PathBuilder(
            baseURL: configuration.baseURL, trailingSlash: configuration.conventions.trailingSlash,
            queryStyle: configuration.conventions.queryStyle)
    }

    /// Creates an API: the settings most servers need; the others are ``APIConfiguration``'s (`init(configuration:)`
    /// or ``with(_:)``).
    ///
    /// ```swift
    /// let api = API(baseURL: URL(string: "https://api.example.com/v1")!)
    /// let drf = API(baseURL: URL(string: "http://127.0.0.1:8000")!, conventions: .djangoREST, token: key)
    /// let basic = API(baseURL: base, credentials: .basic(user: "ada", password: secret))
    /// let patient = API(baseURL: base, middleware: .standard.inserting(RetryMiddleware(policy: .standard)))
    /// ```
    /// - Parameters:
    ///   - baseURL: The URL paths are relative to; `nil` allows only absolute URLs. User info in it
    ///     (`https://ada:secret@api.example.com`) is taken out of the URL and sent as Basic credentials, unless
    ///   `token`, `credentials` or `headers` already say how to authorize.
    ///   - conventions: The server's conventions (trailing slash, query style, coding, pagination, errors).
    ///   - token: A token sent as `Authorization: <scheme> <token>` (the conventions' scheme) with every request.
    ///   - credentials: What to send in the `Authorization` header (``Credentials/basic(user:password:)``,
    ///     ``Credentials/bearer(_:)``, ``Credentials/token(_:)``); wins over `token`.
    ///   - headers: Headers sent with every request.
    ///   - query: Query parameters sent with every request, in the order written.
    ///   - transport: What sends the requests.
    ///   - middleware: The middleware chain every request goes through (see ``APIConfiguration/middleware``): the
    ///     retry policy, logging, a cache and your own stages are set here.
    ///   - callbackQueue: The queue `Future` callbacks run on; `nil` uses the `Future` default.
    ///   - timeout: Seconds a request may wait for the next bytes; `nil` (the default) leaves it to the transport
    ///     (see ``APIConfiguration/timeout``).
    public convenience init(
        baseURL: URL?,
        conventions: APIConventions = .standard,
        token: String? = nil,
        credentials: Credentials? = nil,
        headers: HTTPHeaders = [:],
        query: some FormParametersConvertible = FormParameters(),
        transport: (any Transport)? = nil,
        middleware: [any Middleware] = .standard,
        callbackQueue: DispatchQueue? = nil,
        timeout: TimeInterval? = nil
    ) {
        var merged = headers
        var baseURL = baseURL
        var credentials = credentials ?? token.map { Credentials.token($0) }
        if let url = baseURL, let fromURL = Credentials.userInfo(in: url) {
            baseURL = fromURL.url
            if credentials == nil, merged["Authorization"] == nil { credentials = fromURL.credentials }
        }
        if let credentials { merged["Authorization"] = credentials.authorization(conventions) }
        self.init(
            configuration: APIConfiguration(
                baseURL: baseURL,
                headers: merged,
                query: query.formParameters,
                transport: transport,
                callbackQueue: callbackQueue,
                timeout: timeout,
                conventions: conventions,
                middleware: middleware
            ))
    }

    /// A new API with the changes `change` makes to a copy of this one's configuration.
    ///
    /// ```swift
    /// let traced = api.with { $0.headers["X-Trace"] = "on" }
    /// ```
    public func with(_ change: (inout APIConfiguration) throws -> Void) rethrows -> API {
        var copy = configuration
        try change(&copy)
        return API(configuration: copy)
    }

    /// The URL this API requests for `endpoint`: its default query parameters, then `query` (whose names win).
    ///
    /// An ``Endpoint`` is the one way to name a URL: a path string (`"people/12"`), segments each percent-encoded
    /// as one (`.segments(["people", id])`), or an absolute URL.
    ///
    /// ```swift
    /// let url = try api.url(for: .segments(["people", "a/b"]))   // …/people/a%2Fb
    /// ```
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` for an empty segment, a relative path without a base URL, or
    ///   a result that is not a URL.
    public func url(for endpoint: some EndpointConvertible, query: FormParameters = [:]) throws -> URL {
        try paths.url(for: endpoint.endpoint, query: mergedQuery(query))
    }

    /// The default query parameters without those `query` names again, then `query`.
    package func mergedQuery(_ query: FormParameters) -> FormParameters {
        let defaults = configuration.query
        if defaults.isEmpty { return query }
        if query.isEmpty { return defaults }
        let overridden = Set(query.fields.map(\.name))
        var merged = query
        merged.fields = defaults.fields.filter { !overridden.contains($0.name) } + query.fields
        return merged
    }
}
