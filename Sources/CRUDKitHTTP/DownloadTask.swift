import CRUDKitCore
import Foundation

/// A download to a file that can be paused, resumed and cancelled, byte-exact.
///
/// Pausing stops the transfer and keeps the bytes received so far; resuming asks the server for the rest with
/// `Range: bytes=<n>-` and `If-Range: <ETag or Last-Modified>` and appends the answer. When the server ignores
/// the range (200 instead of 206), has no strong validator, or the file changed (`If-Range` fails), the download
/// restarts cleanly from byte 0. It does not use `URLSessionTask.suspend()`, which on Linux re-sends the request
/// and corrupts the body.
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
        var phase = Phase.running
        var attempt: Task<Void, Never>?
        var unwinding = false
        var resumeWhenUnwound = false
        var validator: String?
        var progress = TransferProgress(completedBytes: 0, expectedBytes: nil)
        var result: Result<URL, CRUDError>?
        var waiters: [CheckedContinuation<URL, any Error>] = []
    }

    private let transport: any ResumableTransport
    private let request: HTTPRequest
    private let destination: URL
    private let partial: URL
    private let observer: TransferObserver
    private let state = Locked(State())

    init(transport: any ResumableTransport, request: HTTPRequest, destination: URL?, observer: TransferObserver) {
        self.transport = transport
        var request = request
        request.headers["Accept-Encoding"] = "identity"
        self.request = request
        // A download without a destination goes to CRUDKit's private directory; a directory or a symbolic link at
        // the destination fails the download before any byte is requested (see `PrivateFiles`).
        var refusal: CRUDError?
        var target = destination ?? FileManager.default.temporaryDirectory
        do {
            if let destination {
                try PrivateFiles.checkDestination(destination)
            } else {
                target = try PrivateFiles.newName("download")
            }
        } catch {
            refusal = error as? CRUDError ?? .transport(underlying: error)
        }
        self.destination = target
        self.partial = PrivateFiles.partialFile(for: target)
        self.observer = observer
        if let refusal { complete(.failure(refusal), phase: .failed) } else { launch() }
    }

    /// Where the download is.
    public var phase: Phase { state.withLock { $0.phase } }

    /// The bytes on disk so far and the total expected.
    public var progress: TransferProgress { state.withLock { $0.progress } }

    /// Stops the transfer and keeps the bytes received so far; nothing happens unless it is running.
    public func pause() {
        let attempt = state.withLock { state -> Task<Void, Never>? in
            guard state.phase == .running else { return nil }
            state.phase = .paused
            state.resumeWhenUnwound = false
            return state.attempt
        }
        attempt?.cancel()
    }

    /// Continues a paused download from the byte where it stopped; nothing happens unless it is paused.
    public func resume() {
        let start = state.withLock { state -> Bool in
            guard state.phase == .paused else { return false }
            state.phase = .running
            if state.unwinding {
                state.resumeWhenUnwound = true
                return false
            }
            return true
        }
        if start { launch() }
    }

    /// Stops the download for good and removes the partial file; ``finished`` throws ``CRUDError/cancelled``
    /// once the attempt in flight has ended and the file is gone.
    public func cancel() {
        let (attempt, now) = state.withLock { state -> (Task<Void, Never>?, Bool) in
            guard state.phase == .running || state.phase == .paused else { return (nil, false) }
            state.phase = .cancelled
            return (state.attempt, !state.unwinding)
        }
        attempt?.cancel()
        // An attempt still unwinding may still create or write the partial file: it completes when it ends.
        if now { complete(.failure(.cancelled), phase: .cancelled) }
    }

    /// The downloaded file, once complete.
    ///
    /// Cancelling the awaiting task cancels the download.
    /// - Throws: ``CRUDError``: ``CRUDError/httpStatus(_:)`` for a status other than 200 or 206,
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

    private func launch() {
        state.withLock { state in
            state.unwinding = true
            state.attempt = Task { await run() }
        }
    }

    private func run() async {
        let offset = state.withLock { state -> Int64 in
            state.validator == nil ? 0 : state.progress.completedBytes
        }
        var attemptRequest = request
        if offset > 0, let validator = state.withLock({ $0.validator }) {
            attemptRequest.headers["Range"] = "bytes=\(offset)-"
            attemptRequest.headers["If-Range"] = validator
        }
        let progressObserver = TransferObserver(upload: observer.upload) { [weak self] progress in
            self?.state.withLock { $0.progress = progress }
            self?.observer.download?(progress)
        }
        do {
            let response = try await transport.receive(
                attemptRequest, into: partial, continuingAt: offset, observer: progressObserver
            ) { [weak self] head in
                self?.learn(from: head, offset: offset)
            }
            try finish(response)
        } catch {
            let failure = error as? CRUDError ?? .transport(underlying: error)
            settle(after: failure)
        }
    }

    /// Records the validator and the expected total from a 2xx response head.
    private func learn(from head: HTTPResponse, offset: Int64) {
        let validator = head.rangeValidator
        var total: Int64?
        if head.status == 206, let range = head.headers["Content-Range"], let slash = range.lastIndex(of: "/") {
            total = Int64(range[range.index(after: slash)...])
        } else {
            total = head.headers["Content-Length"].flatMap { Int64($0) }
        }
        let base = head.status == 206 ? offset : 0
        state.withLock { state in
            state.validator = validator
            state.progress = TransferProgress(completedBytes: base, expectedBytes: total)
        }
    }

    /// Moves the finished file into place; a response that is not a 2xx (its body did not go to the file) fails.
    private func finish(_ response: HTTPResponse) throws {
        guard (200..<300).contains(response.status) else { throw CRUDError.httpStatus(response) }
        // Cancelled while the body ended: the destination is left as it was.
        guard state.withLock({ $0.phase != .cancelled }) else { throw CRUDError.cancelled }
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
        complete(.success(destination), phase: .finished)
    }

    /// After an attempt ended with `failure`: paused (keep the bytes), cancelled, or failed.
    private func settle(after failure: CRUDError) {
        let size = (try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)?.int64Value
        let next = state.withLock { state -> (relaunch: Bool, fail: Bool) in
            state.unwinding = false
            state.progress.completedBytes = size ?? 0
            switch state.phase {
            case .paused:
                return (false, false)
            case .running where state.resumeWhenUnwound:
                state.resumeWhenUnwound = false
                return (true, false)
            case .running:
                return (false, true)
            default:
                return (false, false)
            }
        }
        if next.relaunch { launch() }
        if next.fail { complete(.failure(failure), phase: .failed) }
        // Cancelled while this attempt was in flight: now that it has ended, the partial file goes.
        if phase == .cancelled { complete(.failure(.cancelled), phase: .cancelled) }
    }

    private func complete(_ result: Result<URL, CRUDError>, phase: Phase) {
        let waiters = state.withLock { state -> [CheckedContinuation<URL, any Error>] in
            guard state.result == nil else { return [] }
            state.result = result
            state.phase = phase
            state.unwinding = false
            defer { state.waiters = [] }
            return state.waiters
        }
        if case .failure = result { try? FileManager.default.removeItem(at: partial) }
        for waiter in waiters { waiter.resume(with: result) }
    }
}

extension ResumableTransport {
    /// Starts a download to a file that can be paused and resumed byte-exact (see ``DownloadTask``).
    ///
    /// - Parameters:
    ///   - request: The request (usually a GET); `Accept-Encoding: identity` is set so byte ranges line up.
    ///   - destination: Where the finished file goes, by the rules of ``PrivateFiles/moveIntoPlace(_:to:)``: a
    ///     regular file there is replaced atomically on success and only then; a directory or a symbolic link fails
    ///     the download before any byte is requested. When `nil`, a new owner-only file in CRUDKit's private
    ///     directory (see ``PrivateFiles``), which the caller moves or removes.
    ///   - observer: Told the bytes received (resumed bytes included).
    /// - Returns: The running download.
    public func downloadTask(
        _ request: HTTPRequest, to destination: URL? = nil, observer: TransferObserver = .none
    )
        -> DownloadTask
    {
        DownloadTask(transport: self, request: request, destination: destination, observer: observer)
    }
}
