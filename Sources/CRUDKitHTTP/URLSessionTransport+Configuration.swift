import Foundation

extension URLSessionTransport {
    /// The limits and defaults of a ``URLSessionTransport``.
    ///
    /// ```swift
    /// var configuration = URLSessionTransport.Configuration()
    /// configuration.idleTimeout = 15
    /// configuration.deadline = 60  // the default is 300; nil for none
    /// let transport = URLSessionTransport(configuration: configuration)
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// Connections kept open to one host at most. URLSession's default of 6 queues concurrent requests
        /// behind each other; 32 lets 64 concurrent requests share few enough connections to be reused.
        public var maximumConnectionsPerHost: Int
        /// Seconds without a byte sent or received before a request fails with ``CRUDError/Timeout/idle(_:)``;
        /// a request's own ``HTTPRequest/timeout`` wins. On Linux, URLSession counts whole seconds, so a fraction is
        /// rounded up (0.3 acts as 1).
        ///
        /// Behind an `API` the same rule holds for every time limit: the request's own value, then the API's
        /// (`APIConfiguration.timeout` / `deadline`, `nil` by default), then this transport's. An API that sets no
        /// timeout of its own leaves its requests this one.
        public var idleTimeout: TimeInterval
        /// Seconds the whole exchange may take, redirects included, before it fails with
        /// ``CRUDError/Timeout/deadline(_:)``. A request's own ``HTTPRequest/deadline`` wins.
        ///
        /// The default of 300 seconds (5 minutes) is the total deadline of an exchange kept in memory: the idle
        /// timeout alone never ends a body that trickles a byte at a time, so without a total deadline such a
        /// request would wait forever. Five minutes is far longer than any API call a person waits for (a body of
        /// the default ``maximumResponseSize`` of 50 MB needs only about 1.4 Mbit/s), yet bounded. Downloads to a
        /// file use ``downloadDeadline`` instead. To lift it, set `nil` here (no total deadline for this transport)
        /// or give one request a longer ``HTTPRequest/deadline`` (`.infinity` for none).
        public var deadline: TimeInterval?
        /// Seconds a download to a file (``URLSessionTransport/download(_:to:observer:)``, ``DownloadTask``) may take
        /// in total, when the request has no ``HTTPRequest/deadline`` of its own; `nil` for none. The default is
        /// 3,600 seconds (1 hour: 1 GB at about 2.3 Mbit/s), so a download trickling forever still ends; a
        /// request's own deadline (`.infinity` for none) lifts it for one download.
        public var downloadDeadline: TimeInterval?
        /// The largest response body held in memory; a larger one fails with ``CRUDError/responseTooLarge(limit:)``
        /// as soon as it is known to be larger, and reading stops. Downloads to a file are not limited.
        public var maximumResponseSize: Int
        /// Redirects followed at most before ``CRUDError/tooManyRedirects(limit:)``.
        public var maximumRedirects: Int
        /// The `User-Agent` sent when a request has none.
        public var userAgent: String
        /// Where the transport keeps cookies: `nil` (the default) gives each transport made from this
        /// configuration a jar of its own; a ``CookieJar`` is shared by every transport given it.
        ///
        /// Every `API` made without a transport uses `APIConfiguration.defaultTransport`, so they all share its
        /// jar: a cookie one server sets goes to every API's requests to that host (or, with a `Domain`, that
        /// domain). To keep an API's cookies to itself, give it a transport of its own:
        /// `APIConfiguration(baseURL: url, transport: URLSessionTransport())`.
        public var cookieJar: CookieJar?

        /// Creates a configuration; every parameter has a default.
        ///
        /// - Parameters:
        ///   - maximumConnectionsPerHost: Connections to one host at most (default 32).
        ///   - idleTimeout: Idle timeout in seconds (default 60).
        ///   - deadline: Total time allowed in seconds (default 300; `nil` for none).
        ///   - maximumResponseSize: Largest body kept in memory, in bytes (default 50 MB).
        ///   - maximumRedirects: Redirects followed at most (default 10).
        ///   - userAgent: Default `User-Agent` (default `CRUDKit/<version>`).
        ///   - downloadDeadline: Total time allowed for a download to a file, in seconds (default 3,600; `nil` for
        ///     none).
        ///   - cookieJar: The jar cookies are kept in (default `nil`: a jar of the transport's own).
        public init(
            maximumConnectionsPerHost: Int = 32,
            idleTimeout: TimeInterval = 60,
            deadline: TimeInterval? = 300,
            maximumResponseSize: Int = 50 * 1024 * 1024,
            maximumRedirects: Int = 10,
            userAgent: String = "CRUDKit/\(URLSessionTransport.libraryVersion)",
            downloadDeadline: TimeInterval? = 3600,
            cookieJar: CookieJar? = nil
        ) {
            self.cookieJar = cookieJar
            self.downloadDeadline = downloadDeadline
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.idleTimeout = idleTimeout
            self.deadline = deadline
            self.maximumResponseSize = maximumResponseSize
            self.maximumRedirects = maximumRedirects
            self.userAgent = userAgent
        }
    }

    /// The CRUDKit version sent in the default `User-Agent`.
    @usableFromInline package static let libraryVersion = "0.1.0"
}
