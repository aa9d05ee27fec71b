import Foundation

extension URLSessionTransport {
    /// The limits of a ``URLSessionTransport``: what is its own (connections, idle time, size, user agent).
    ///
    /// What CRUDKit decides for every transport lives in `APIConfiguration` and is stamped on each request: the
    /// total deadline (``HTTPRequest/deadline``, 300 s by default, 3,600 s for a download to a file), the cookie
    /// jar, the redirects followed. The transport sends one exchange, enforces what the request carries and adds
    /// nothing of its own.
    ///
    /// ```swift
    /// var configuration = URLSessionTransport.Configuration()
    /// configuration.idleTimeout = 15
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
        /// Behind an `API`: the request's own value, then the API's (`APIConfiguration.timeout`, `nil` by
        /// default), then this one. An API that sets no timeout of its own leaves its requests this one.
        public var idleTimeout: TimeInterval
        /// The largest response body held in memory; a larger one fails with ``CRUDError/responseTooLarge(limit:)``
        /// as soon as it is known to be larger, and reading stops. Downloads to a file are not limited.
        public var maximumResponseSize: Int
        /// The `User-Agent` sent when a request has none.
        public var userAgent: String

        /// Creates a configuration; every parameter has a default.
        ///
        /// - Parameters:
        ///   - maximumConnectionsPerHost: Connections to one host at most (default 32).
        ///   - idleTimeout: Idle timeout in seconds (default 60).
        ///   - maximumResponseSize: Largest body kept in memory, in bytes (default 50 MB).
        ///   - userAgent: Default `User-Agent` (default `CRUDKit/<version>`).
        public init(
            maximumConnectionsPerHost: Int = 32,
            idleTimeout: TimeInterval = 60,
            maximumResponseSize: Int = 50 * 1024 * 1024,
            userAgent: String = "CRUDKit/\(URLSessionTransport.libraryVersion)"
        ) {
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.idleTimeout = idleTimeout
            self.maximumResponseSize = maximumResponseSize
            self.userAgent = userAgent
        }
    }

    /// The CRUDKit version sent in the default `User-Agent`.
    @usableFromInline package static let libraryVersion = "0.1.0"
}
