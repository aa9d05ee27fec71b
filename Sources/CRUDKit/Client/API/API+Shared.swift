import Dispatch
import Foundation

extension API {
    /// The shared default, behind one lock; starts without a base URL or transport.
    private static let installed = Locked(API(baseURL: nil))

    /// An API set for the current task and its children by ``withShared(_:operation:)``.
    @TaskLocal private static var scoped: API?

    /// The API model operations use when given none: the one set by ``withShared(_:operation:)`` for the current
    /// task if any, otherwise the one installed by ``configure(baseURL:headers:query:transport:middleware:retryPolicy:logHandler:)``
    /// (or by setting this property).
    ///
    /// Reading and setting are safe from any thread; a request keeps the API it started with, so replacing the
    /// default never affects requests already running.
    public static var shared: API {
        get { scoped ?? installed.withLock { $0 } }
        set { installed.withLock { $0 = newValue } }
    }

    // twin: none (runs the caller's own async closure; there is nothing to start as a Future)
    /// Runs `operation` with `api` as ``shared`` for the current task and the tasks it creates, leaving the
    /// program-wide default alone (handy for tests, and for servers that talk to one API per tenant).
    /// - Returns: What `operation` returns.
    public static func withShared<Result>(
        _ api: API,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        try await $scoped.withValue(api, operation: operation)
    }
}

/// Installs the API every model operation uses by default (``API/shared``), and returns it.
///
/// Call it once at start-up; calling it again while requests run is safe (they finish with the API they started
/// with).
///
/// ```swift
/// CRUDKit.configure(
///     baseURL: URL(string: "https://api.example.com/v1")!,
///     headers: ["Authorization": "Bearer \(token)"]
/// )
/// ```
/// - Parameters:
///   - baseURL: The URL paths are relative to.
///   - headers: Headers sent with every request.
///   - query: Query parameters sent with every request.
///   - transport: What sends the requests.
///   - middleware: The middleware chain every request goes through (see ``APIConfiguration/middleware``).
///   - retryPolicy: When failed requests are sent again (shorthand for a ``RetryMiddleware`` in `middleware`).
///   - logHandler: Receives an event per request, response, failure and retry (shorthand for a
///     ``LoggingMiddleware`` in `middleware`).
/// - Returns: The installed API.
@discardableResult
public func configure(
    baseURL: URL,
    headers: HTTPHeaders = [:],
    query: some FormParametersConvertible = FormParameters(),
    transport: (any Transport)? = nil,
    middleware: [any Middleware] = .standard,
    retryPolicy: RetryPolicy? = nil,
    logHandler: LogHandler? = nil
) -> API {
    let api = API(
        baseURL: baseURL, headers: headers, query: query, transport: transport, middleware: middleware,
        retryPolicy: retryPolicy, logHandler: logHandler)
    API.shared = api
    return api
}

/// Installs `api` as the default every model operation uses (``API/shared``), for the settings that
/// ``configure(baseURL:headers:query:transport:middleware:retryPolicy:logHandler:)`` does not list.
///
/// ```swift
/// CRUDKit.configure(API(configuration: APIConfiguration(baseURL: base, trailingSlash: .always)))
/// ```
public func configure(_ api: API) {
    API.shared = api
}
