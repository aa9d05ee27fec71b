import CRUDKitCore
import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// A `URLSession` as the transport uses it (ephemeral: no disk cache, no response cache, no cookie storage; see
    /// ``URLSessionTransport/init(configuration:)``), reporting to `delegate`.
    #if canImport(FoundationNetworking)
    static func makeSession(_ configuration: Configuration, delegate: URLSessionTransportDelegate) -> URLSession {
        // Delegate callbacks run inline on the session's serial work queue (see InlineDelegateQueue).
        makeSession(configuration, delegate: delegate, delegateQueue: InlineDelegateQueue())
    }
    #else
    static func makeSession(
        _ configuration: Configuration, delegate: URLSessionTransportDelegate, queue: DispatchQueue
    ) -> URLSession {
        let delegateQueue = OperationQueue()
        delegateQueue.underlyingQueue = queue
        return makeSession(configuration, delegate: delegate, delegateQueue: delegateQueue)
    }
    #endif

    private static func makeSession(
        _ configuration: Configuration, delegate: URLSessionTransportDelegate, delegateQueue: OperationQueue
    ) -> URLSession {
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.httpMaximumConnectionsPerHost = max(1, configuration.maximumConnectionsPerHost)
        // The idle timeout is set per request; the deadline is our own timer (Linux ignores the resource timeout).
        sessionConfiguration.timeoutIntervalForRequest = urlSessionTimeout(configuration.idleTimeout)
        sessionConfiguration.timeoutIntervalForResource = backstopTimeout
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // The jar is kept by the transport, not the session: FoundationNetworking parses every response header line
        // as a possible Set-Cookie (about 5% of a small request's cost on loopback); CookieJar reads only real ones,
        // and applies RFC 6265 (public suffixes, IP addresses, limits) where HTTPCookieStorage on Linux does not.
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpCookieAcceptPolicy = .never
        sessionConfiguration.httpShouldSetCookies = false
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.name = "CRUDKit.URLSessionTransport.delegate"
        return URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: delegateQueue)
    }

    /// Whether `request` must go out on a connection no other request has used: a write that is not idempotent
    /// (`POST`, `PATCH`, any other method RFC 9110 does not call idempotent) without an `Idempotency-Key`, on Linux.
    ///
    /// FoundationNetworking is libcurl, which resends a request by itself on a new connection when a reused
    /// keep-alive connection closes before any byte of the answer arrives (`Curl_retry_request`: "Connection died,
    /// retrying a fresh connect"), whatever the method, and no option FoundationNetworking sets turns that off. The
    /// server may have read and carried out the request before the connection closed: a `POST` went out twice, and
    /// with a body the second copy carried the head alone and waited for the idle timeout. On a connection that was
    /// never used before, libcurl does not retry: the write goes out once, and a dropped connection is the error the
    /// caller (and its retry policy, which knows whether the request may be repeated) sees.
    ///
    /// Idempotent requests may be repeated, and a keyed write is recognised by the server when it comes again, so
    /// both keep sharing the pooled connections. On Apple platforms URLSession does not resend a request that is not
    /// idempotent, and the shared session is used for every request.
    static func needsOwnConnection(_ request: HTTPRequest) -> Bool {
        #if canImport(FoundationNetworking)
        return !request.method.isIdempotent && request.headers["Idempotency-Key"] == nil
        #else
        return false
        #endif
    }

    /// The session and delegate `request` goes out on: the shared ones, or, when the request
    /// ``needsOwnConnection(_:)``, a session of its own (its own pool of connections, so its one connection is
    /// new), which the caller ends with `finishTasksAndInvalidate()` once the task has completed.
    func channel(for request: HTTPRequest) -> (URLSession, URLSessionTransportDelegate) {
        guard Self.needsOwnConnection(request) else { return (session, delegate) }
        let ownDelegate = URLSessionTransportDelegate()
        #if canImport(FoundationNetworking)
        return (Self.makeSession(configuration, delegate: ownDelegate), ownDelegate)
        #else
        return (Self.makeSession(configuration, delegate: ownDelegate, queue: delegateDispatchQueue), ownDelegate)
        #endif
    }
}
