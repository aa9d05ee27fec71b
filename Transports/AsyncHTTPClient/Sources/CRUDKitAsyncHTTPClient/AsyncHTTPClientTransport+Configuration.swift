import CRUDKit
import Foundation

extension AsyncHTTPClientTransport {
    /// What is an ``AsyncHTTPClientTransport``'s own: connections, idle time, size limit and `User-Agent`.
    ///
    /// What CRUDKit decides for every transport lives in `APIConfiguration` and is stamped on each request or kept
    /// at the end of the API's middleware chain: the total deadline (``CRUDKit/HTTPRequest/deadline``), the cookie
    /// jar, the redirects followed. The transport sends one exchange and enforces what the request carries.
    ///
    /// ```swift
    /// var configuration = AsyncHTTPClientTransport.Configuration()
    /// configuration.idleTimeout = 15
    /// let transport = AsyncHTTPClientTransport(configuration: configuration)
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// Connections an owned client keeps open to one host at most (AsyncHTTPClient's soft limit per host, and the
        /// limit of the transport's own gate for answers collected on the event loop). A client passed in
        /// (``AsyncHTTPClientTransport/init(client:configuration:)``) keeps its own pool settings.
        public var maximumConnectionsPerHost: Int
        /// Seconds without a byte sent or received before a request fails with
        /// ``CRUDKit/CRUDError/Timeout/idle(_:)``; a request's own ``CRUDKit/HTTPRequest/timeout`` wins (behind an
        /// `API`: the request's, then `APIConfiguration.timeout`, then this one).
        public var idleTimeout: TimeInterval
        /// The largest response body held in memory, decoded; a larger one fails with
        /// ``CRUDKit/CRUDError/responseTooLarge(limit:)`` as soon as it is known to be larger, and reading stops.
        /// Downloads to a file are not limited.
        public var maximumResponseSize: Int
        /// The `User-Agent` sent when a request has none.
        public var userAgent: String

        /// Creates a configuration; every parameter has a default (the same as `URLSessionTransport`'s).
        ///
        /// - Parameters:
        ///   - maximumConnectionsPerHost: Connections to one host at most (default 32).
        ///   - idleTimeout: Idle timeout in seconds (default 60).
        ///   - maximumResponseSize: Largest body kept in memory, in bytes (default 50 MB).
        ///   - userAgent: Default `User-Agent` (default `CRUDKit/<version>`, as `URLSessionTransport`'s).
        public init(
            maximumConnectionsPerHost: Int = 32,
            idleTimeout: TimeInterval = 60,
            maximumResponseSize: Int = 50 * 1024 * 1024,
            userAgent: String = URLSessionTransport.Configuration().userAgent
        ) {
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.idleTimeout = idleTimeout
            self.maximumResponseSize = maximumResponseSize
            self.userAgent = userAgent
        }
    }
}
