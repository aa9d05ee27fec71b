import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One URLSession task of a ``URLSessionTransport``: collects the response, enforces the size limit and the
/// deadline, reports progress, and resumes its continuation exactly once.
///
/// Delegate callbacks arrive on the session's serial delegate queue; cancellation and timers arrive from other
/// threads. Everything mutable sits in `state`, guarded by its lock.
final class URLSessionTransfer: Sendable {
    /// Where a successful body goes.
    enum Sink {
        /// Into `HTTPResponse.body`.
        case memory
        /// Into a file; see ``FileTarget``.
        case file(FileTarget)
    }

    /// A file a 2xx body is written to; a 206 answer to `Range: bytes=<resumeOffset>-` is appended.
    struct FileTarget {
        var url: URL
        var resumeOffset: Int64 = 0
    }

    struct State {
        var continuation: Continuation?
        var task: URLSessionTask?
        var failure: CRUDError?
        var finished = false
        var response: HTTPURLResponse?
        var body = Data()
        var sink: Sink
        var handle: FileHandle?
        var fileBase: Int64 = 0
        var received: Int64 = 0
        var expected: Int64?
        var timer: (any DispatchSourceTimer)?
        /// The exact idle watchdog for a fractional idle timeout (see ``watchesIdle``), and when bytes last moved.
        var idleTimer: (any DispatchSourceTimer)?
        var lastActivity: UInt64 = 0
        /// Which progress reports reach the observer (see ``TransferObserver``).
        var uploadThrottle = ProgressThrottle()
        var downloadThrottle = ProgressThrottle()
        /// The latest report each throttle held back, and the timer that delivers it once the interval has passed
        /// (a transfer that stalls still reports the bytes it has).
        var pendingUpload: TransferProgress?
        var pendingDownload: TransferProgress?
        var trailingTimer: (any DispatchSourceTimer)?
    }

    typealias Continuation = CheckedContinuation<Outcome, any Error>

    /// What the task produced, as URLSession reported it; ``URLSessionTransport`` turns it into an
    /// ``URLSessionTransferResult`` after resuming, off the session's serial work queue.
    struct Outcome: Sendable {
        var response: HTTPURLResponse
        var body: Data
        var wroteFile: Bool
        var fileLength: Int64

        /// The ``URLSessionTransferResult`` for this outcome.
        var result: URLSessionTransferResult {
            URLSessionTransferResult(
                response: HTTPResponse(
                    status: response.statusCode,
                    headers: URLSessionTransport.headers(of: response),
                    body: body,
                    url: response.url
                ),
                wroteFile: wroteFile,
                fileLength: fileLength
            )
        }
    }

    let observer: TransferObserver
    let idleTimeout: TimeInterval
    /// Whether this transfer runs its own idle watchdog: FoundationNetworking counts the request timeout in whole
    /// seconds (URLSession is given the timeout rounded up), so a fractional timeout is enforced here exactly.
    let watchesIdle: Bool
    let deadline: (at: UInt64, seconds: TimeInterval)?
    let maximumBodySize: Int
    let cookies: CookieJar?
    let expectsBody: Bool
    let uploadLength: Int64?
    let onFileResponse: (@Sendable (HTTPResponse) -> Void)?
    let state: Locked<State>
    /// Held while an observer closure runs, so reports reach it one at a time and in order, whichever thread
    /// (the delegate queue or the trailing timer) delivers them; it counts the reports delivered. (Not a
    /// `Locked<Void>`: ThreadSanitizer reports the exclusive access to a zero-sized value as a race with the
    /// lock's own storage.)
    private let delivery = Locked(0)

    private static let timerQueue = DispatchQueue(label: "CRUDKit.URLSessionTransport.timers")
    private static let cancelQueue = DispatchQueue(label: "CRUDKit.URLSessionTransport.cancel")

    init(
        sink: Sink,
        observer: TransferObserver,
        idleTimeout: TimeInterval,
        deadline: (at: UInt64, seconds: TimeInterval)?,
        maximumBodySize: Int,
        cookies: CookieJar? = nil,
        expectsBody: Bool,
        uploadLength: Int64?,
        onFileResponse: (@Sendable (HTTPResponse) -> Void)? = nil
    ) {
        self.onFileResponse = onFileResponse
        self.observer = observer
        self.idleTimeout = idleTimeout
        self.watchesIdle = idleTimeout > 0 && idleTimeout.rounded(.down) != idleTimeout
        self.deadline = deadline
        self.maximumBodySize = maximumBodySize
        self.cookies = cookies
        self.expectsBody = expectsBody
        self.uploadLength = uploadLength
        self.state = Locked(State(sink: sink))
    }

    // MARK: - Starting and ending

    /// Creates the task with `makeTask`, registers it with `delegate` and starts it, unless the transfer was
    /// already cancelled.
    func start(
        continuation: Continuation,
        delegate: URLSessionTransportDelegate,
        makeTask: () -> URLSessionTask
    ) {
        let early = state.withLock { state -> CRUDError? in
            if let failure = state.failure { return failure }
            state.continuation = continuation
            return nil
        }
        if let early {
            continuation.resume(throwing: early)
            return
        }
        let task = makeTask()
        delegate.register(self, for: task.taskIdentifier)
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            state.timer = makeTimer()
            if watchesIdle {
                state.lastActivity = DispatchTime.now().uptimeNanoseconds
                state.idleTimer = makeIdleTimer(after: idleTimeout)
            }
            return state.finished
        }
        if cancelled {
            delegate.unregister(task.taskIdentifier)
            task.cancel()
        } else {
            task.resume()
        }
    }

    /// Ends the transfer with `error` now (cancellation, a timeout, a size limit) and cancels the task.
    func fail(_ error: CRUDError) {
        let (continuation, task) = state.withLock { state -> (Continuation?, URLSessionTask?) in
            guard !state.finished else { return (nil, nil) }
            if state.failure == nil { state.failure = error }
            return finish(&state)
        }
        if let task { Self.cancelLater(task) }
        continuation?.resume(throwing: error)
    }

    /// Cancels `task` from another thread: `URLSessionTask.cancel()` waits for the session's work queue, which
    /// is where delegate callbacks run on Linux, and a task-cancellation handler must not wait for it either.
    private static func cancelLater(_ task: URLSessionTask) {
        cancelQueue.async { task.cancel() }
    }

    /// Marks the state finished and releases what it holds; returns the continuation to resume (outside the lock).
    private func finish(_ state: inout State) -> (Continuation?, URLSessionTask?) {
        state.finished = true
        state.timer?.cancel()
        state.timer = nil
        state.idleTimer?.cancel()
        state.idleTimer = nil
        state.trailingTimer?.cancel()
        state.trailingTimer = nil
        try? state.handle?.close()
        state.handle = nil
        let continuation = state.continuation
        state.continuation = nil
        return (continuation, state.task)
    }

    // MARK: - Delegate events (on the delegate queue)

    func didReceive(_ response: URLResponse) -> Bool {
        guard let http = response as? HTTPURLResponse else {
            fail(.transport(underlying: URLError(.badServerResponse)))
            return false
        }
        if let cookies, let url = http.url { cookies.store(from: http, for: url) }
        let length = http.expectedContentLength >= 0 ? http.expectedContentLength : nil
        let outcome = state.withLock { state -> CRUDError? in
            if watchesIdle { state.lastActivity = DispatchTime.now().uptimeNanoseconds }
            guard !state.finished else { return nil }
            state.response = http
            state.received = 0
            state.body = Data()
            if case .file(let target) = state.sink, (200..<300).contains(http.statusCode) {
                do {
                    state.fileBase = try openFile(target, for: http, into: &state)
                } catch let error as CRUDError {
                    return error
                } catch {
                    return .transport(underlying: error)
                }
                state.expected = length.map { $0 + state.fileBase }
                return nil
            }
            state.expected = length
            let hasBody = expectsBody && http.statusCode != 204 && http.statusCode != 304
            if hasBody, let length, length > maximumBodySize { return .responseTooLarge(limit: maximumBodySize) }
            return nil
        }
        if let outcome {
            fail(outcome)
            return false
        }
        if let onFileResponse, case .file = state.withLock({ $0.sink }), (200..<300).contains(http.statusCode) {
            onFileResponse(HTTPResponse(status: http.statusCode, headers: URLSessionTransport.headers(of: http)))
        }
        return true
    }

    private func openFile(_ target: FileTarget, for response: HTTPURLResponse, into state: inout State) throws -> Int64
    {
        var base: Int64 = 0
        if response.statusCode == 206 && target.resumeOffset > 0 {
            let range = response.value(forHTTPHeaderField: "Content-Range") ?? ""
            guard Self.rangeStart(range) == target.resumeOffset else {
                throw CRUDError.transport(underlying: URLError(.badServerResponse))
            }
            base = target.resumeOffset
        }
        if !FileManager.default.fileExists(atPath: target.url.path) {
            _ = FileManager.default.createFile(atPath: target.url.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: target.url)
        try handle.truncate(atOffset: UInt64(base))
        try handle.seek(toOffset: UInt64(base))
        state.handle = handle
        return base
    }

    /// The first byte position of a `Content-Range: bytes N-M/T` value.
    static func rangeStart(_ value: String) -> Int64? {
        guard value.hasPrefix("bytes ") else { return nil }
        return value.dropFirst(6).split(separator: "-").first.flatMap { Int64($0) }
    }

    func didReceive(_ data: Data) {
        let outcome = state.withLock { state -> (CRUDError?, TransferProgress?) in
            guard !state.finished else { return (nil, nil) }
            if watchesIdle { state.lastActivity = DispatchTime.now().uptimeNanoseconds }
            state.received += Int64(data.count)
            if let handle = state.handle {
                do {
                    try handle.write(contentsOf: data)
                } catch {
                    return (.transport(underlying: error), nil)
                }
            } else {
                guard state.body.count + data.count <= maximumBodySize else {
                    return (.responseTooLarge(limit: maximumBodySize), nil)
                }
                state.body.append(data)
            }
            return (
                nil, TransferProgress(completedBytes: state.fileBase + state.received, expectedBytes: state.expected)
            )
        }
        if let error = outcome.0 { fail(error) }
        if let progress = outcome.1 { report(progress, upload: false) }
    }

    func didSend(totalBytesSent: Int64, totalBytesExpected: Int64) {
        let progress = TransferProgress(
            completedBytes: totalBytesSent,
            expectedBytes: uploadLength ?? (totalBytesExpected > 0 ? totalBytesExpected : nil)
        )
        if watchesIdle { state.withLock { $0.lastActivity = DispatchTime.now().uptimeNanoseconds } }
        report(progress, upload: true)
    }

    func didComplete(_ error: (any Error)?) {
        typealias Settled = (Continuation?, Result<Outcome, CRUDError>)
        let final = state.withLock { state -> TransferProgress? in
            guard error == nil, !state.finished, state.received > 0 else { return nil }
            return TransferProgress(completedBytes: state.fileBase + state.received, expectedBytes: state.expected)
        }
        if let final { report(final, upload: false, final: true) }
        let (continuation, result) = state.withLock { state -> Settled in
            guard !state.finished else { return (nil, .failure(.cancelled)) }
            let (continuation, _) = finish(&state)
            if let error {
                return (continuation, .failure(URLSessionTransport.crudError(for: error, idleTimeout: idleTimeout)))
            }
            guard let http = state.response else {
                return (continuation, .failure(.transport(underlying: URLError(.badServerResponse))))
            }
            var wroteFile = false
            if case .file = state.sink, (200..<300).contains(http.statusCode) { wroteFile = true }
            let length = state.fileBase + state.received
            let outcome = Outcome(response: http, body: state.body, wroteFile: wroteFile, fileLength: length)
            state.body = Data()
            return (continuation, .success(outcome))
        }
        continuation?.resume(with: result)
    }

    /// Ends the transfer with `response`, the 401 an authentication challenge came with (see
    /// ``URLSessionTransportDelegate``), and the body received so far; then calls `cancelChallenge` from another
    /// thread, since cancelling the challenge cancels the task, which waits for the queue this runs on.
    func didReceiveChallenge(response: HTTPURLResponse, cancelChallenge: @escaping @Sendable () -> Void) {
        if state.withLock({ $0.response == nil && !$0.finished }) { _ = didReceive(response) }
        let (continuation, outcome) = state.withLock { state -> (Continuation?, Outcome?) in
            guard !state.finished else { return (nil, nil) }
            let (continuation, _) = finish(&state)
            let http = state.response ?? response
            var wroteFile = false
            if case .file = state.sink, (200..<300).contains(http.statusCode) { wroteFile = true }
            let outcome = Outcome(
                response: http, body: state.body, wroteFile: wroteFile, fileLength: state.fileBase + state.received)
            state.body = Data()
            return (continuation, outcome)
        }
        Self.cancelQueue.async { cancelChallenge() }
        if let continuation, let outcome { continuation.resume(returning: outcome) }
    }

    // MARK: - Progress

    /// Tells the observer `progress` if its throttle admits it now; otherwise keeps it for the trailing timer.
    private func report(_ progress: TransferProgress, upload: Bool, final: Bool = false) {
        guard let closure = upload ? observer.upload : observer.download else { return }
        delivery.withLock { delivered in
            let admitted = state.withLock { state -> Bool in
                guard !state.finished else { return false }
                let now = DispatchTime.now().uptimeNanoseconds
                let admitted =
                    upload
                    ? state.uploadThrottle.admit(progress, final: final, now: now)
                    : state.downloadThrottle.admit(progress, final: final, now: now)
                if upload { state.pendingUpload = admitted ? nil : progress }
                if !upload { state.pendingDownload = admitted ? nil : progress }
                if !admitted && state.trailingTimer == nil { scheduleTrailing(&state) }
                return admitted
            }
            if admitted {
                closure(progress)
                delivered += 1
            }
        }
    }

    /// Starts the timer that delivers held-back reports one ``ProgressThrottle/minimumInterval`` from now.
    private func scheduleTrailing(_ state: inout State) {
        let timer = DispatchSource.makeTimerSource(queue: Self.timerQueue)
        timer.setEventHandler { [weak self] in self?.deliverPending() }
        timer.schedule(deadline: .now() + .nanoseconds(Int(ProgressThrottle.minimumInterval)))
        timer.resume()
        state.trailingTimer = timer
    }

    /// Delivers the reports the throttles held back (the trailing timer's handler).
    private func deliverPending() {
        delivery.withLock { delivered in
            let due = state.withLock { state -> (upload: TransferProgress?, download: TransferProgress?) in
                state.trailingTimer = nil
                guard !state.finished else { return (nil, nil) }
                let now = DispatchTime.now().uptimeNanoseconds
                var due: (upload: TransferProgress?, download: TransferProgress?) = (nil, nil)
                if (state.pendingUpload?.completedBytes ?? .max) <= state.uploadThrottle.lastReported {
                    state.pendingUpload = nil
                }
                if (state.pendingDownload?.completedBytes ?? .max) <= state.downloadThrottle.lastReported {
                    state.pendingDownload = nil
                }
                if let pending = state.pendingUpload, state.uploadThrottle.admitTrailing(pending, now: now) {
                    due.upload = pending
                    state.pendingUpload = nil
                }
                if let pending = state.pendingDownload, state.downloadThrottle.admitTrailing(pending, now: now) {
                    due.download = pending
                    state.pendingDownload = nil
                }
                // A report came too soon after a newer admitted one: try again an interval later.
                if state.pendingUpload != nil || state.pendingDownload != nil { scheduleTrailing(&state) }
                return due
            }
            if let upload = due.upload {
                observer.upload?(upload)
                delivered += 1
            }
            if let download = due.download {
                observer.download?(download)
                delivered += 1
            }
        }
    }

    // MARK: - Timeouts

    /// A timer for the deadline; `nil` when there is none. The idle timeout is URLSession's own
    /// (`URLRequest.timeoutInterval` is reset whenever bytes arrive, on Linux as on Apple platforms).
    private func makeTimer() -> (any DispatchSourceTimer)? {
        guard let deadline else { return nil }
        let timer = DispatchSource.makeTimerSource(queue: Self.timerQueue)
        timer.setEventHandler { [weak self] in self?.checkDeadline() }
        let now = DispatchTime.now().uptimeNanoseconds
        timer.schedule(deadline: .now() + .nanoseconds(Int(min(deadline.at - min(deadline.at, now), UInt64(Int.max)))))
        timer.resume()
        return timer
    }

    /// A one-shot timer that checks for idleness `seconds` from now.
    private func makeIdleTimer(after seconds: TimeInterval) -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: Self.timerQueue)
        timer.setEventHandler { [weak self] in self?.checkIdle() }
        timer.schedule(deadline: .now() + .nanoseconds(Int(max(0, seconds) * 1e9)))
        timer.resume()
        return timer
    }

    /// Fails the transfer if no bytes moved for ``idleTimeout``; otherwise checks again when they would have.
    private func checkIdle() {
        let idleNanoseconds = UInt64(idleTimeout * 1e9)
        let expired = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            let now = DispatchTime.now().uptimeNanoseconds
            let quiet = now - min(state.lastActivity, now)
            if quiet >= idleNanoseconds { return true }
            state.idleTimer?.cancel()
            state.idleTimer = makeIdleTimer(after: Double(idleNanoseconds - quiet) / 1e9)
            return false
        }
        if expired { fail(.timedOut(.idle(idleTimeout))) }
    }

    private func checkDeadline() {
        guard let deadline else { return }
        let expired = state.withLock { !$0.finished }
        if expired { fail(.timedOut(.deadline(deadline.seconds))) }
    }
}

/// What one URLSession task produced.
struct URLSessionTransferResult: Sendable {
    /// The response; its body is empty when it went to the file.
    var response: HTTPResponse
    /// Whether the body was written to the file target.
    var wroteFile: Bool
    /// The length of the file target after the transfer.
    var fileLength: Int64
}
