@_spi(TransportKit) import CRUDKitCore
import Foundation

/// A download to a file that can be paused, resumed and cancelled, byte-exact.
///
/// Pausing stops the transfer and keeps the bytes received so far; resuming asks the server for the rest of the
/// range the first answer covered with `Range: bytes=<next>-<last>` and `If-Range: <its strong ETag or Last-Modified>`
/// and appends the answer only when it is a `206` with the same strong validator and exactly that range and total.
/// Anything else (a `200`, another validator, another range, no strong validator) restarts the download cleanly
/// from byte 0; the rule is `RequestHandle`'s, through the same `ResumeStateMachine`. It does not use
/// `URLSessionTask.suspend()`, which on Linux re-sends the request and corrupts the body.
///
/// Every ``ResumableTransport`` can run one: ``URLSessionTransport`` and `AsyncHTTPClientTransport` (package
/// `CRUDKitAsyncHTTPClient`) alike.
///
/// ```swift
/// let download = transport.downloadTask(HTTPRequest(url: videoURL), to: destination)
/// download.pause()
/// download.resume()
/// let file = try await download.finished
/// ```
public final class DownloadTask: Sendable {
    /// Where a download is.
    public enum Phase: Sendable, Hashable {
        /// Receiving bytes.
        case running
        /// Stopped by ``DownloadTask/pause()``, with the bytes so far kept.
        case paused
        /// Complete: the file is at the destination.
        case finished
        /// Ended with an error; the partial file has been removed.
        case failed
        /// Ended by ``DownloadTask/cancel()``; the partial file has been removed.
        case cancelled
    }

    private struct State {
        var progress = TransferProgress(completedBytes: 0, expectedBytes: nil)
        var result: Result<URL, CRUDError>?
        var waiters: [CheckedContinuation<URL, any Error>] = []
    }

    private let transport: any ResumableTransport
    private let request: HTTPRequest
    private let destination: URL
    private let partial: URL
    /// The file of a download without a destination: created in the private directory through its descriptor,
    /// written through its own, and handed over only from a directory still this user's (see
    /// `PrivateFiles.KeptFile`).
    private let kept: PrivateFiles.KeptFile?
    private let observer: TransferObserver
    /// Follows the redirects of each attempt (no cookie jar: a download task belongs to no `API`).
    private let redirects: RedirectFollower
    /// The pause/resume mechanism shared with `RequestHandle`.
    private let driver = ResumeDriver(paused: false)
    private let state = Locked(State())

    init(
        transport: any ResumableTransport, request: HTTPRequest, destination: URL?, observer: TransferObserver,
        maximumRedirects: Int
    ) {
        self.transport = transport
        self.redirects = RedirectFollower(limit: maximumRedirects)
        var request = request
        request.headers["Accept-Encoding"] = "identity"
        self.request = request
        // A download without a destination goes to CRUDKit's private directory; a directory or a symbolic link at
        // the destination fails the download before any byte is requested (see `PrivateFiles`).
        var refusal: CRUDError?
        let target = destination ?? FileManager.default.temporaryDirectory
        var kept: PrivateFiles.KeptFile?
        do {
            if let destination {
                try PrivateFiles.checkDestination(destination)
            } else {
                kept = try PrivateFiles.KeptFile("download")
            }
        } catch {
            refusal = error as? CRUDError ?? .transport(underlying: error)
        }
        self.kept = kept
        // Without a destination, the body goes straight into the kept file: its directory is private already.
        self.destination = kept?.url ?? target
        self.partial = kept?.url ?? PrivateFiles.partialFile(for: target)
        self.observer = observer
        if let refusal { complete(.failure(refusal)) } else { Task { await run() } }
    }

    /// Where the download is.
    public var phase: Phase {
        let ended = state.withLock { state -> Phase? in
            switch state.result {
            case nil: nil
            case .success: .finished
            case .failure(.cancelled): .cancelled
            case .failure: .failed
            }
        }
        if let ended { return ended }
        return driver.phase == .paused ? .paused : .running
    }

    /// The bytes on disk so far and the total expected.
    public var progress: TransferProgress { state.withLock { $0.progress } }

    /// Stops the transfer and keeps the bytes received so far; nothing happens unless it is running.
    public func pause() {
        _ = driver.pause()
    }

    /// Continues a paused download from the byte where it stopped; nothing happens unless it is paused.
    public func resume() {
        driver.resume()
    }

    /// Stops the download for good and removes the partial file; ``finished`` throws ``CRUDError/cancelled``
    /// once the attempt in flight has ended and the file is gone.
    public func cancel() {
        // The attempt in flight (or the wait while paused) ends with `cancelled`, and `run()` then completes: only
        // once that attempt has unwound, so it can no longer create or write the partial file.
        _ = driver.cancel()
    }

    /// The downloaded file, once complete.
    ///
    /// Cancelling the awaiting task cancels the download.
    /// - Throws: ``CRUDError``: ``CRUDError/httpStatus(_:)`` for a status other than 2xx,
    ///   ``CRUDError/cancelled`` after ``cancel()``, or the transfer's failure.
    public var finished: URL {
        get async throws {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let result = state.withLock { state -> Result<URL, CRUDError>? in
                        if state.result == nil { state.waiters.append(continuation) }
                        return state.result
                    }
                    if let result { continuation.resume(with: result) }
                }
            } onCancel: {
                cancel()
            }
        }
    }

    // MARK: - Attempts

    /// Drives the download through the attempts the driver asks for, then moves the file into place.
    private func run() async {
        let progressObserver = TransferObserver(upload: observer.upload) { [weak self] progress in
            self?.state.withLock { $0.progress = progress }
            self?.observer.download?(progress)
        }
        do {
            let (response, fromFile) = try await driver.read(
                request, continuable: true, transport: transport, file: partial, observer: progressObserver,
                redirects: redirects)
            // Cancelled while the body ended: the destination is left as it was.
            guard driver.phase != .cancelled else { throw CRUDError.cancelled }
            guard fromFile else { throw CRUDError.httpStatus(response) }
            try finish(response)
        } catch {
            let cancelled = driver.phase == .cancelled
            complete(.failure(cancelled ? .cancelled : error as? CRUDError ?? .transport(underlying: error)))
        }
    }

    /// Moves the finished file into place; a response that is not a 2xx (its body did not go to the file) fails.
    private func finish(_ response: HTTPResponse) throws {
        guard (200..<300).contains(response.status) else { throw CRUDError.httpStatus(response) }
        if let kept {
            let length = kept.size
            let file = try kept.release()
            state.withLock { $0.progress.completedBytes = length }
            complete(.success(file))
            return
        }
        let length: Int64
        do {
            if !FileManager.default.fileExists(atPath: partial.path) {
                // A 2xx with an empty body (204, or 200 with nothing) may leave no file behind.
                try PrivateFiles.create(at: partial).close()
            }
            length =
                (try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)?
                .int64Value ?? 0
            try PrivateFiles.moveIntoPlace(partial, to: destination)
        } catch {
            throw error as? CRUDError ?? CRUDError.transport(underlying: error)
        }
        state.withLock { $0.progress.completedBytes = length }
        complete(.success(destination))
    }

    /// Ends the download with `result`, once. A failure removes the partial file first: the ending is published
    /// (to ``phase``, ``finished`` and its waiters) only once the file is gone, as they promise.
    private func complete(_ result: Result<URL, CRUDError>) {
        driver.end()
        if case .failure = result, state.withLock({ $0.result == nil }) {
            if let kept { kept.remove() } else { try? FileManager.default.removeItem(at: partial) }
        }
        let waiters = state.withLock { state -> [CheckedContinuation<URL, any Error>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}

extension ResumableTransport {
    /// Starts a download to a file that can be paused and resumed byte-exact (see ``DownloadTask``).
    ///
    /// - Parameters:
    ///   - request: The request (usually a GET); `Accept-Encoding: identity` is set so byte ranges line up.
    ///   - destination: Where the finished file goes, by the rules of `PrivateFiles.moveIntoPlace(_:to:)`: a
    ///     regular file there is replaced atomically on success and only then; a directory or a symbolic link fails
    ///     the download before any byte is requested. When `nil`, a new owner-only file in CRUDKit's private
    ///     directory (see `PrivateFiles`), which the caller moves or removes.
    ///   - observer: Told the bytes received (resumed bytes included).
    ///   - maximumRedirects: Redirects followed at most, by `RedirectPolicy`'s rules, before the download fails with
    ///     ``CRUDError/tooManyRedirects(limit:)`` (default 5, as `APIConfiguration.maximumRedirects`); the transport
    ///     itself follows none.
    /// - Returns: The running download.
    public func downloadTask(
        _ request: HTTPRequest, to destination: URL? = nil, observer: TransferObserver = .none,
        maximumRedirects: Int = 5
    )
        -> DownloadTask
    {
        DownloadTask(
            transport: self, request: request, destination: destination, observer: observer,
            maximumRedirects: maximumRedirects)
    }
}
