import Foundation

extension URLSessionTransport {
    /// The limits and defaults of a ``URLSessionTransport``.
    ///
    /// ```swift
    /// var configuration = URLSessionTransport.Configuration()
    /// configuration.idleTimeout = 15
    /// configuration.deadline = 60
    /// let transport = URLSessionTransport(configuration: configuration)
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// Connections kept open to one host at most. URLSession's default of 6 queues concurrent requests
        /// behind each other; 32 lets 64 concurrent requests share few enough connections to be reused.
        public var maximumConnectionsPerHost: Int
        /// Seconds without a byte sent or received before a request fails with ``CRUDError/Timeout/idle(_:)``;
        /// a request's own ``HTTPRequest/timeout`` wins. On Linux, URLSession counts whole seconds, so a fraction is
        /// rounded up (0.3 acts as 1).
        public var idleTimeout: TimeInterval
        /// Seconds the whole exchange may take, redirects included, before it fails with
        /// ``CRUDError/Timeout/deadline(_:)``; `nil` for none. A request's own ``HTTPRequest/deadline`` wins.
        public var deadline: TimeInterval?
        /// The largest response body held in memory; a larger one fails with ``CRUDError/responseTooLarge(limit:)``
        /// as soon as it is known to be larger, and reading stops. Downloads to a file are not limited.
        public var maximumResponseSize: Int
        /// Redirects followed at most before ``CRUDError/tooManyRedirects(limit:)``.
        public var maximumRedirects: Int
        /// The `User-Agent` sent when a request has none.
        public var userAgent: String

        /// Creates a configuration; every parameter has a default.
        ///
        /// - Parameters:
        ///   - maximumConnectionsPerHost: Connections to one host at most (default 32).
        ///   - idleTimeout: Idle timeout in seconds (default 60).
        ///   - deadline: Total time allowed in seconds (default none).
        ///   - maximumResponseSize: Largest body kept in memory, in bytes (default 50 MB).
        ///   - maximumRedirects: Redirects followed at most (default 10).
        ///   - userAgent: Default `User-Agent` (default `CRUDKit/<version>`).
        public init(
            maximumConnectionsPerHost: Int = 32,
            idleTimeout: TimeInterval = 60,
            deadline: TimeInterval? = nil,
            maximumResponseSize: Int = 50 * 1024 * 1024,
            maximumRedirects: Int = 10,
            userAgent: String = "CRUDKit/\(URLSessionTransport.libraryVersion)"
        ) {
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.idleTimeout = idleTimeout
            self.deadline = deadline
            self.maximumResponseSize = maximumResponseSize
            self.maximumRedirects = maximumRedirects
            self.userAgent = userAgent
        }
    }

    /// The CRUDKit version sent in the default `User-Agent`.
    public static let libraryVersion = "0.1.0"
}
