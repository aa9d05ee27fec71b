@_spi(TransportKit) import CRUDKitCore
import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``Transport``: one `URLSession` (FoundationNetworking on Linux) with CRUDKit's own handling of
/// timeouts, size limits, progress and cancellation, the same on Linux and Apple platforms; it sends one exchange.
///
/// - Headers are set explicitly: a `User-Agent` of `CRUDKit/<version>` and, for a body without one, a
///   `Content-Type` of `application/octet-stream` (URLSession on Linux would otherwise label a POST
///   `application/x-www-form-urlencoded`).
/// - Cancelling the calling `Task` cancels the URLSession task and throws ``CRUDError/cancelled``.
/// - A request is sent once: on Linux a write that is not idempotent (`POST`, `PATCH`) and has no
///   `Idempotency-Key` goes out on a connection of its own, with `Connection: close`, because libcurl would resend
///   it by itself when a reused connection drops before the answer (the server may have acted on it).
/// - The idle timeout (URLSession's request timeout, restarted whenever bytes arrive) and the request's
///   ``HTTPRequest/deadline`` (enforced by the transport, since Linux ignores `timeoutIntervalForResource`) throw
///   ``CRUDError/timedOut(_:)``. A request without a deadline has none here: the `API` stamps its default on each.
/// - One request is one exchange: a redirect (3xx) comes back as it is, with its `Location` and body (URLSession's
///   own following is off). An `API` follows redirects once, at the end of its middleware chain, by the same rules
///   for every transport (`APIConfiguration.maximumRedirects`).
/// - A body larger than ``Configuration/maximumResponseSize`` stops the transfer with
///   ``CRUDError/responseTooLarge(limit:)``; but a redirect the `API` (or a ``DownloadTask``) follows comes back
///   without its body, whatever its size (a short one is read and dropped so the connection carries the next hop,
///   a longer one ends the connection after the head).
/// - Cookies are not kept here: the headers go as the request carries them and `Set-Cookie` comes back in the
///   response (an `API` keeps them in its `APIConfiguration.cookieJar`). URLSession's own cookie storage is off.
///
/// ```swift
/// let transport = URLSessionTransport()
/// let response = try await transport.send(HTTPRequest(url: URL(string: "https://api.example.com/people")!))
/// ```
public final class URLSessionTransport: Transport {
    /// The limits and defaults this transport was created with.
    public let configuration: Configuration
    let session: URLSession
    let delegate: URLSessionTransportDelegate
    /// The one timer behind every exchange's deadline (see ``DeadlineSweeper``).
    let deadlines = DeadlineSweeper()
    #if !canImport(FoundationNetworking)
    /// The queue under the delegate queue; `OperationQueue.underlyingQueue` does not keep it alive.
    let delegateDispatchQueue = DispatchQueue(label: "CRUDKit.URLSessionTransport.delegate")
    #endif

    /// Creates a transport with its own `URLSession` (ephemeral: no disk cache, no response cache, no cookies).
    ///
    /// - Parameter configuration: Limits and defaults.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        delegate = URLSessionTransportDelegate()
        #if canImport(FoundationNetworking)
        session = Self.makeSession(configuration, delegate: delegate)
        #else
        session = Self.makeSession(configuration, delegate: delegate, queue: delegateDispatchQueue)
        #endif
    }

    /// Lets the session end once its tasks have: every task still running then is one the transport has already
    /// cancelled (a request in flight keeps the transport alive). `invalidateAndCancel()` would cancel those tasks
    /// a second time, which FoundationNetworking on Linux can answer with a crash ("a task that is not in the
    /// registry") when the two cancellations race.
    deinit { session.finishTasksAndInvalidate() }

    static let backstopTimeout: TimeInterval = 7 * 24 * 3600

    /// The idle timeout as URLSession is given it. FoundationNetworking truncates it to whole seconds
    /// (`Int(timeoutInterval) * 1000` milliseconds), so 0.3 became 0 and fired at once; on Linux a fraction is
    /// rounded up to the next second instead. An infinite, not-a-number or larger-than-a-year timeout is a year:
    /// FoundationNetworking traps converting an infinite one to an integer (as `AsyncHTTPClientTransport` caps it).
    static func urlSessionTimeout(_ seconds: TimeInterval) -> TimeInterval {
        let year: TimeInterval = 86_400 * 365
        let seconds = seconds.isFinite ? min(seconds, year) : year
        #if canImport(FoundationNetworking)
        return max(1, seconds.rounded(.up))
        #else
        return max(0.001, seconds)
        #endif
    }

    /// Sends `request` and returns its response; a redirect is returned as it is, not followed.
    ///
    /// - Parameter request: The request; its headers are checked first (see `HTTPRequest/validate()`).
    /// - Returns: The response, whatever its status.
    /// - Throws: ``CRUDError``.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await send(request, observer: .none)
    }

    /// Sends `request` (a redirect is returned, not followed), telling `observer` how the upload and download
    /// progress.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - observer: Told the bytes sent and received, as they are.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``CRUDError``.
    public func send(_ request: HTTPRequest, observer: TransferObserver) async throws -> HTTPResponse {
        try await exchange(request, sink: .memory, observer: observer).response
    }

    /// Sends `request` and streams a 2xx body into `destination` as it arrives (memory stays bounded).
    ///
    /// The file is written next to `destination` first (owner-only) and moved there on success, replacing a
    /// regular file atomically (see `PrivateFiles.moveIntoPlace(_:to:)`); a directory or a symbolic link at
    /// `destination` is refused before the request is sent. On failure or cancellation nothing is left behind and
    /// an existing file is untouched. For other statuses the body is returned in the response and no file is made.
    /// - Parameters:
    ///   - request: The request.
    ///   - destination: The file to create or replace.
    ///   - observer: Told the bytes sent and received.
    /// - Returns: The response (with an empty body when it went to the file).
    /// - Throws: ``CRUDError``.
    public func download(
        _ request: HTTPRequest, to destination: URL, observer: TransferObserver
    ) async throws
        -> HTTPResponse
    {
        try PrivateFiles.checkDestination(destination)
        let partial = PrivateFiles.partialFile(for: destination)
        defer { try? FileManager.default.removeItem(at: partial) }
        let result = try await exchange(request, sink: .file(.init(url: partial)), observer: observer)
        if result.wroteFile { try PrivateFiles.moveIntoPlace(partial, to: destination) }
        return result.response
    }

    // MARK: - Exchanges

    /// Sends `request` as one exchange (a redirect comes back as it is) and returns its result.
    func exchange(
        _ request: HTTPRequest,
        sink: URLSessionTransfer.Sink,
        observer: TransferObserver,
        onFileResponse: (@Sendable (HTTPResponse) -> Void)? = nil
    ) async throws -> URLSessionTransferResult {
        try request.validate()
        var result = try await perform(
            request,
            sink: sink,
            observer: observer,
            deadline: Self.deadline(request.deadline),
            onFileResponse: onFileResponse
        )
        result.response.url = request.url
        return result
    }

    /// When a deadline of `seconds` from now falls, in uptime nanoseconds; `nil` for none (`nil`, infinite or NaN
    /// seconds, or one too far away to count: past ``DeadlineSweeper/latest``, about 146 years of uptime, where
    /// libdispatch would read the time as one of another clock, already past).
    static func deadline(_ seconds: TimeInterval?) -> (at: UInt64, seconds: TimeInterval)? {
        guard let seconds, seconds.isFinite else { return nil }
        let nanoseconds = max(0, seconds) * 1e9
        guard nanoseconds < Double(DeadlineSweeper.latest) else { return nil }
        let at = DispatchTime.now().uptimeNanoseconds + UInt64(nanoseconds)
        guard at < DeadlineSweeper.latest else { return nil }
        return (at, seconds)
    }

    /// Runs one URLSession task for `request`.
    func perform(
        _ request: HTTPRequest,
        sink: URLSessionTransfer.Sink,
        observer: TransferObserver,
        deadline: (at: UInt64, seconds: TimeInterval)?,
        onFileResponse: (@Sendable (HTTPResponse) -> Void)?
    ) async throws -> URLSessionTransferResult {
        if Task.isCancelled { throw CRUDError.cancelled }
        var urlRequest = makeURLRequest(request)
        if Self.needsOwnConnection(request), urlRequest.value(forHTTPHeaderField: "Connection") == nil {
            // The connection is never reused: the server need not keep it, nor the client wait to close it.
            urlRequest.setValue("close", forHTTPHeaderField: "Connection")
        }
        var uploadLength: Int64?
        if case .file(let url) = request.body {
            let size = try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber
            guard let size else { throw CRUDError.invalidRequest(reason: "cannot read the body file \(url.path)") }
            uploadLength = size.int64Value
        } else if case .data(let data) = request.body {
            uploadLength = Int64(data.count)
        }
        let transfer = URLSessionTransfer(
            sink: sink,
            observer: observer,
            idleTimeout: request.timeout ?? configuration.idleTimeout,
            deadline: deadline,
            deadlines: deadlines,
            maximumBodySize: configuration.maximumResponseSize,
            expectsBody: request.method != .head,
            uploadLength: uploadLength,
            request: request,
            onFileResponse: onFileResponse
        )
        let (session, delegate) = channel(for: request)
        defer { if session !== self.session { session.finishTasksAndInvalidate() } }
        let outcome = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.start(continuation: continuation, delegate: delegate) {
                    switch request.body {
                    case .data(let data) where !data.isEmpty:
                        session.uploadTask(with: urlRequest, from: data)
                    case .file(let url):
                        session.uploadTask(with: urlRequest, fromFile: url)
                    default:
                        session.dataTask(with: urlRequest)
                    }
                }
            }
        } onCancel: {
            transfer.fail(.cancelled)
        }
        return outcome.result
    }

    /// The `URLRequest` for `request`, with CRUDKit's default headers.
    ///
    /// The header fields are collected first and set at once: each `URLRequest.addValue` call compares the new
    /// name with every field already set, lower-casing both, which cost more than the rest of this method.
    /// Repeated names are joined with a comma, as `addValue` does.
    func makeURLRequest(_ request: HTTPRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.timeoutInterval = Self.urlSessionTimeout(request.timeout ?? configuration.idleTimeout)
        var fields: [String: String] = [:]
        var spellings: [(key: String, name: String)] = []
        var hasUserAgent = false
        var hasContentType = false
        for field in request.headers {
            let key = field.name.lowercased()
            switch key {
            case "user-agent": hasUserAgent = true
            case "content-type": hasContentType = true
            default: break
            }
            if let earlier = spellings.first(where: { $0.key == key }) {
                fields[earlier.name] = (fields[earlier.name] ?? "") + "," + field.value
            } else {
                spellings.append((key, field.name))
                fields[field.name] = field.value
            }
        }
        if !hasUserAgent { fields["User-Agent"] = configuration.userAgent }
        if !request.body.isEmpty && !hasContentType { fields["Content-Type"] = "application/octet-stream" }
        urlRequest.httpShouldHandleCookies = false
        urlRequest.allHTTPHeaderFields = fields
        return urlRequest
    }
}
