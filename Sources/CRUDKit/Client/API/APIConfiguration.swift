@_spi(TransportKit) import CRUDKitHTTP
import Dispatch
import Foundation

/// Everything an ``API`` knows: where the server is, what every request carries, how bodies are coded, how
/// requests travel and what happens around them.
///
/// A value: change a copy and make a new ``API`` from it (``API/with(_:)`` does both).
public struct APIConfiguration: Sendable {
    /// The URL paths are relative to, such as `https://api.example.com/v1`; `nil` allows only absolute URLs.
    public var baseURL: URL?
    /// Headers sent with every request (StreemNetworking's `additionalHeaders`); a request's own headers win.
    public var headers: HTTPHeaders
    /// Query parameters sent with every request (StreemNetworking's `additionalParameters`); a request's own
    /// parameters of the same name win.
    public var query: FormParameters
    /// What sends the requests (by default ``defaultTransport``, a shared ``URLSessionTransport``).
    public var transport: any Transport
    /// The middleware chain every request goes through, outermost first, before the transport, and the one place
    /// the standard stages' settings live: by default `.standard` (``RetryMiddleware`` with
    /// ``RetryPolicy/none``, ``ValidationMiddleware``, ``CoalescingMiddleware``). Add a standard stage with
    /// `insert(_:)`, which places it at its standard position (``CacheMiddleware``, ``LoggingMiddleware``,
    /// ``IdempotencyKeyMiddleware``, or a ``RetryMiddleware`` with another policy); add your own with
    /// `insert(_:before:)` or `insert(_:after:)`; remove a stage by its name.
    ///
    /// ```swift
    /// let api = API(baseURL: base).with {
    ///     $0.middleware.insert(CacheMiddleware(ResponseCache()))
    ///     $0.middleware.insert(Envelope(), after: .retry)
    /// }
    /// ```
    public var middleware: [any Middleware]
    /// The queue `Future` callbacks of this API run on; `nil` uses the `Future` default.
    public var callbackQueue: DispatchQueue?
    /// Which headers and query parameters logs and `curl` renderings never show in clear.
    public var redaction: Redaction
    /// Seconds a request may wait for the next bytes, unless the request sets its own timeout; `nil` (the
    /// default) leaves it to the transport (``URLSessionTransport/Configuration/idleTimeout``, 60 s by default).
    ///
    /// One rule for every time limit, on every transport: the request's own value wins, then the API's, then the
    /// transport's. So a transport configured with `idleTimeout: 15` gives every API over it 15 seconds, and an
    /// API that sets `timeout = 5` gives its requests 5 seconds whatever its transport says.
    ///
    /// ```swift
    /// let api = API(baseURL: base, transport: URLSessionTransport(configuration: .init(idleTimeout: 15)))
    /// let impatient = api.with { $0.timeout = 5 }  // 5 s; `api` keeps the transport's 15 s
    /// ```
    public var timeout: TimeInterval?
    /// Seconds a whole exchange (redirects included) may take, unless the request sets its own; `nil` for none.
    ///
    /// Stamped on every request the API builds (``HTTPRequest/deadline``), which is all a transport enforces. The
    /// default of 300 seconds (5 minutes) bounds a body that trickles a byte at a time (the idle timeout alone
    /// never ends it), yet is far longer than any API call a person waits for. Downloads to a file use
    /// ``downloadDeadline``. A request's own deadline wins (`.infinity` for none).
    ///
    /// ```swift
    /// let patient = api.with { $0.deadline = 900 }
    /// ```
    public var deadline: TimeInterval?
    /// Seconds a download to a file (``API/download(_:to:)``) may take in total, unless the request sets its own
    /// deadline; `nil` for none. The default of 3,600 seconds (1 hour: 1 GB at about 2.3 Mbit/s) still ends a
    /// download that trickles forever.
    public var downloadDeadline: TimeInterval?
    /// Where the API keeps cookies (in memory, RFC 6265; see ``CookieJar``): the end of the middleware chain adds
    /// the matching `Cookie` header to every exchange that has none and stores every response's `Set-Cookie`,
    /// whatever the transport.
    ///
    /// Each configuration made gets a jar of its own; copies of it (``API/with(_:)``) share that jar, so does any
    /// API given the same jar. Give a fresh `CookieJar()` to keep a copy's cookies apart.
    ///
    /// ```swift
    /// let jar = CookieJar()
    /// let web = API(configuration: APIConfiguration(baseURL: site, cookieJar: jar))
    /// let admin = API(configuration: APIConfiguration(baseURL: site, transport: other, cookieJar: jar))
    /// ```
    public var cookieJar: CookieJar
    /// Redirects an exchange follows at most before it fails with ``CRUDError/tooManyRedirects(limit:)`` (default
    /// 5); with 0, any redirect the rules below would follow fails.
    ///
    /// Redirects are followed once, at the end of the middleware chain, by the same rules whatever the transport
    /// (which sends one exchange and returns a 3xx as it is): 301 and 302 for `GET` and `HEAD` only, 303 as a `GET`
    /// without body, 307 and 308 with method and body, credentials and cookies never sent to another origin, one
    /// ``deadline`` across every hop, each hop's `Set-Cookie` kept in ``cookieJar``.
    ///
    /// ```swift
    /// let strict = api.with { $0.maximumRedirects = 0 }  // a GET answered 302 fails with .tooManyRedirects(limit: 0)
    /// ```
    public var maximumRedirects: Int
    /// The clock retries wait on; tests put a manual one here so nothing sleeps for real.
    public var clock: any APIClock
    /// What the server expects, in one place: trailing slash, lists in queries, JSON coding, pagination, error
    /// shape, authorization scheme, how `PUT` and `PATCH` bodies are written (see ``APIConventions``). A model may
    /// change some of them for its own calls (``CRUDResource/conventions(from:)``).
    ///
    /// ```swift
    /// let plain = api.with { $0.conventions.coding = .plain }
    /// ```
    public var conventions: APIConventions

    /// Creates a configuration; every parameter has the default an ``API`` starts with (`middleware`: see
    /// ``middleware``; `cookieJar`: a new, empty jar).
    public init(
        baseURL: URL?,
        headers: HTTPHeaders = [:],
        query: FormParameters = [:],
        transport: (any Transport)? = nil,
        callbackQueue: DispatchQueue? = nil,
        redaction: Redaction = .standard,
        timeout: TimeInterval? = nil,
        deadline: TimeInterval? = 300,
        clock: any APIClock = SystemClock(),
        conventions: APIConventions = .standard,
        middleware: [any Middleware] = .standard,
        downloadDeadline: TimeInterval? = 3600,
        cookieJar: CookieJar = CookieJar(),
        maximumRedirects: Int = 5
    ) {
        self.baseURL = baseURL
        self.headers = headers
        self.query = query
        self.transport = transport ?? Self.defaultTransport
        self.callbackQueue = callbackQueue
        self.redaction = redaction
        self.timeout = timeout
        self.deadline = deadline
        self.downloadDeadline = downloadDeadline
        self.cookieJar = cookieJar
        self.maximumRedirects = maximumRedirects
        self.clock = clock
        self.conventions = conventions
        self.middleware = middleware
    }
}

extension APIConfiguration {
    /// The JSON coding of the API's conventions (``APIConventions/coding``).
    package var coding: JSONCoding { conventions.coding }

    /// The transport of every API that is given none: one ``URLSessionTransport`` for the whole program, made
    /// when first needed, so that APIs made on the fly share its connections.
    public static let defaultTransport: any Transport = URLSessionTransport()
}

extension APIConfiguration: CustomStringConvertible {
    /// The base URL, default headers and query, timeouts, transport and middleware, with secrets hidden by the
    /// configuration's own ``redaction`` (a password in the base URL, `Authorization`, an `api_key` query value):
    /// printing a configuration shows no credential.
    public var description: String {
        let headers = redaction.redact(self.headers).map { "\($0.name): \($0.value)" }.joined(separator: "; ")
        let query = self.query.flattened(style: conventions.queryStyle).map { pair in
            "\(pair.name)=\(redaction.hidesQueryParameter(pair.name) ? Redaction.placeholder : pair.value)"
        }
        let timeout = self.timeout.map { "\($0) s" } ?? "the transport's"
        let deadline = self.deadline.map { "\($0) s" } ?? "none"
        let downloadDeadline = self.downloadDeadline.map { "\($0) s" } ?? "none"
        return "APIConfiguration(baseURL: \(baseURL.map(redaction.redact) ?? "none"), headers: [\(headers)], "
            + "query: [\(query.joined(separator: "&"))], timeout: \(timeout), deadline: \(deadline), "
            + "downloadDeadline: \(downloadDeadline), maximumRedirects: \(maximumRedirects), "
            + "transport: \(type(of: transport)), middleware: [\(middleware.map { "\($0.name)" }.joined(separator: ", "))])"
    }
}
