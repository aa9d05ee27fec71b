import CRUDKitCore
import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One URLSession task of a ``URLSessionTransport``: the glue between URLSession and a
/// ``TransferStateMachine``, which decides what each event means (collect the response, enforce the size limit
/// and the deadline, report progress, resume the continuation exactly once).
///
/// Delegate callbacks arrive on the session's serial delegate queue; cancellation and timers arrive from other
/// threads. The machine and the timers sit in `state`, guarded by its lock: each event runs the machine under the
/// lock and performs the action it returns outside the lock. The open file sits in `file`, under its own lock, so
/// a write on the delegate queue and the close of a cancellation on another thread never overlap.
final class URLSessionTransfer: Sendable {
    /// Where a successful body goes.
    enum Sink {
        /// Into `HTTPResponse.body`.
        case memory
        /// Into a file; see ``FileTarget``.
        case file(FileTarget)
    }

    /// A file a 2xx body is written to; a 206 whose `Content-Range` starts at ``rangeStart`` (the `Range` asked for;
    /// ``resumeOffset`` when `nil`) is appended after the file's first ``resumeOffset`` bytes.
    struct FileTarget {
        var url: URL
        var resumeOffset: Int64 = 0
        var rangeStart: Int64?
    }

    typealias Machine = TransferStateMachine<Continuation, URLSessionTask>

    /// What the lock guards: the machine, and the timers its actions armed (the deadline is kept by
    /// ``DeadlineSweeper``).
    struct State {
        var machine: Machine
        /// The exact idle watchdog for a fractional idle timeout (see ``watchesIdle``).
        var idleTimer: (any DispatchSourceTimer)?
        /// The timer that delivers a report the throttle held back once the interval has passed (a transfer that
        /// stalls still reports the bytes it has).
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
    /// Keeps the deadline (the transport's one timer for every transfer).
    let deadlines: DeadlineSweeper
    let onFileResponse: (@Sendable (HTTPResponse) -> Void)?
    /// The request, when the redirect follower that sent it follows a redirect answering it (its body is then
    /// dropped, see `HTTPRequest.followedRedirectDrain(status:headers:)`); `nil` otherwise.
    let hop: HTTPRequest?
    let state: Locked<State>
    /// The file a 2xx body is written to while it is open.
    private let file = Locked<FileHandle?>(nil)
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
        deadlines: DeadlineSweeper,
        maximumBodySize: Int,
        expectsBody: Bool,
        uploadLength: Int64?,
        request: HTTPRequest? = nil,
        onFileResponse: (@Sendable (HTTPResponse) -> Void)? = nil
    ) {
        self.onFileResponse = onFileResponse
        self.hop = request?.redirectStamp.followsNext == true ? request : nil
        self.observer = observer
        self.idleTimeout = idleTimeout
        self.watchesIdle = idleTimeout > 0 && idleTimeout.rounded(.down) != idleTimeout
        self.deadline = deadline
        self.deadlines = deadlines
        var target: FileTarget?
        if case .file(let file) = sink { target = file }
        let settings = Machine.Settings(
            maximumBodySize: maximumBodySize,
            expectsBody: expectsBody,
            file: target,
            idleTimeout: idleTimeout,
            watchesIdle: watchesIdle,
            deadline: deadline?.seconds,
            uploadLength: uploadLength
        )
        self.state = Locked(State(machine: Machine(settings: settings)))
    }

    private static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Whether the transfer ended (its continuation resumed); a task still running is then being cancelled.
    var isFinished: Bool { state.withLock { $0.machine.isFinished } }

    // MARK: - Starting and ending

    /// Creates the task with `makeTask`, registers it with `delegate` and starts it, unless the transfer was
    /// already cancelled.
    func start(
        continuation: Continuation,
        delegate: URLSessionTransportDelegate,
        makeTask: () -> URLSessionTask
    ) {
        var proceeds = false
        handle { machine in
            let action = machine.start(continuation)
            if case .proceed = action { proceeds = true }
            return action
        }
        guard proceeds else { return }
        let task = makeTask()
        delegate.register(self, for: task.taskIdentifier)
        let action = state.withLock { state -> Machine.Action in
            let action = state.machine.taskCreated(task, now: Self.now)
            if case .resumeTask(let watchIdle) = action {
                if let deadline { deadlines.watch(self, until: deadline.at) }
                if watchIdle { state.idleTimer = makeIdleTimer(after: idleTimeout) }
            }
            return action
        }
        switch action {
        case .cancelTask(let task):
            delegate.unregister(task.taskIdentifier)
            task.cancel()
        case .resumeTask:
            task.resume()
        default:
            perform(action)
        }
    }

    /// Ends the transfer with `error` now (cancellation, a timeout, a size limit) and cancels the task.
    func fail(_ error: CRUDError) {
        handle { $0.fail(error) }
    }

    /// Cancels `task` from another thread: `URLSessionTask.cancel()` waits for the session's work queue, which
    /// is where delegate callbacks run on Linux, and a task-cancellation handler must not wait for it either.
    private static func cancelLater(_ task: URLSessionTask) {
        cancelQueue.async { task.cancel() }
    }

    /// Runs `event` on the machine under the lock (taking the timers out with a completion, so none is armed
    /// after it), then performs the action outside the lock.
    private func handle(_ event: (inout Machine) -> Machine.Action) {
        var timers: [(any DispatchSourceTimer)?] = []
        var finished = false
        let action = state.withLock { state -> Machine.Action in
            let action = event(&state.machine)
            if case .finish = action {
                finished = true
                timers = [state.idleTimer, state.trailingTimer]
                state.idleTimer = nil
                state.trailingTimer = nil
            }
            return action
        }
        for timer in timers { timer?.cancel() }
        if finished, deadline != nil { deadlines.release(self) }
        perform(action)
    }

    /// Performs what an event method of the machine returned, outside the lock (the actions that need the lock,
    /// arming timers, are taken where the event runs).
    private func perform(_ action: Machine.Action) {
        switch action {
        case .none, .proceed, .resumeTask, .openFile:
            break
        case .cancelTask(let task):
            Self.cancelLater(task)
        case .rearmIdle(let seconds):
            state.withLock { state in
                guard !state.machine.isFinished else { return }
                state.idleTimer?.cancel()
                state.idleTimer = makeIdleTimer(after: seconds)
            }
        case .write(let data, let progress):
            let failure = file.withLock { handle -> (any Error)? in
                guard let handle else { return nil }
                do {
                    try handle.write(contentsOf: data)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure {
                handle { $0.fileFailed(failure) }
            } else {
                report(progress, upload: false)
            }
        case .report(let progress):
            report(progress, upload: false)
        case .finish(let continuation, let result, let task):
            file.withLock { handle in
                try? handle?.close()
                handle = nil
            }
            if let task { Self.cancelLater(task) }
            continuation?.resume(with: result.mapError { $0 as any Error })
        }
    }

    // MARK: - Delegate events (on the delegate queue)

    func didReceive(_ response: URLResponse) -> Bool {
        guard let http = response as? HTTPURLResponse else {
            handle { $0.receivedNonHTTPResponse() }
            return false
        }
        let length = http.expectedContentLength >= 0 ? http.expectedContentLength : nil
        if let onFileResponse, (200..<300).contains(http.statusCode) {
            // Announced before this transfer decides where the bytes go (or refuses a 206 that does not continue
            // at the kept bytes), so the hook's rule applies to every 2xx head: another validator starts over.
            onFileResponse(HTTPResponse(status: http.statusCode, headers: URLSessionTransport.headers(of: http)))
        }
        var drain: Int?
        if let hop, (300..<400).contains(http.statusCode) {
            drain = hop.followedRedirectDrain(status: http.statusCode, headers: URLSessionTransport.headers(of: http))
        }
        var opening: (url: URL, offset: Int64)?
        var proceeds = false
        handle { machine in
            let action = machine.receivedHead(http, expectedLength: length, now: Self.now, drain: drain)
            if case .openFile(let url, let offset) = action { opening = (url, offset) }
            if case .proceed = action { proceeds = true }
            return action
        }
        guard let opening else { return proceeds }
        do {
            try open(opening.url, at: opening.offset)
        } catch {
            handle { $0.fileFailed(error) }
            return false
        }
        handle { machine in
            let action = machine.fileOpened()
            if case .proceed = action { proceeds = true }
            return action
        }
        guard proceeds else {
            // The transfer ended while the file was being opened: close it here, the completion found none.
            file.withLock { handle in
                try? handle?.close()
                handle = nil
            }
            return false
        }
        return true
    }

    /// Opens `url` for writing (creating it owner-only, see ``PrivateFiles/openForWriting(_:)``), truncated to and
    /// positioned at `offset`.
    private func open(_ url: URL, at offset: Int64) throws {
        let handle = try PrivateFiles.openForWriting(url)
        try handle.truncate(atOffset: UInt64(offset))
        try handle.seek(toOffset: UInt64(offset))
        let replaced = file.withLock { file in
            defer { file = handle }
            return file
        }
        try? replaced?.close()
    }

    /// The first byte position of a `Content-Range: bytes N-M/T` value (a valid one only).
    static func rangeStart(_ value: String) -> Int64? {
        ContentRange(value)?.first
    }

    /// The first byte position a `Range: bytes=N-` or `bytes=N-M` value asks for.
    static func requestedStart(_ value: String?) -> Int64? {
        guard let value, value.hasPrefix("bytes=") else { return nil }
        let bounds = value.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2 else { return nil }
        return ContentRange.digits(bounds[0])
    }

    func didReceive(_ data: Data) {
        handle { $0.receivedBody(data, now: Self.now) }
    }

    func didSend(totalBytesSent: Int64, totalBytesExpected: Int64) {
        let progress = state.withLock {
            $0.machine.sentBody(totalBytesSent: totalBytesSent, totalBytesExpected: totalBytesExpected, now: Self.now)
        }
        report(progress, upload: true)
    }

    func didComplete(_ error: (any Error)?) {
        if let final = state.withLock({ $0.machine.finalDownloadProgress(error: error) }) {
            report(final, upload: false, final: true)
        }
        handle { $0.taskCompleted(error: error) }
    }

    /// Ends the transfer with `response`, the 401 an authentication challenge came with (see
    /// ``URLSessionTransportDelegate``), and the body received so far; then calls `cancelChallenge` from another
    /// thread, since cancelling the challenge cancels the task, which waits for the queue this runs on.
    func didReceiveChallenge(response: HTTPURLResponse, cancelChallenge: @escaping @Sendable () -> Void) {
        if state.withLock({ $0.machine.response == nil && !$0.machine.isFinished }) { _ = didReceive(response) }
        Self.cancelQueue.async { cancelChallenge() }
        handle { $0.challengeReceived(response) }
    }

    // MARK: - Progress

    /// Tells the observer `progress` if its throttle admits it now; otherwise keeps it for the trailing timer.
    private func report(_ progress: TransferProgress, upload: Bool, final: Bool = false) {
        guard let closure = upload ? observer.upload : observer.download else { return }
        delivery.withLock { delivered in
            let verdict = state.withLock { state -> Machine.ProgressVerdict in
                let verdict = state.machine.progressReady(progress, upload: upload, final: final, now: Self.now)
                if case .hold(scheduleTrailing: true) = verdict { state.trailingTimer = makeTrailingTimer() }
                return verdict
            }
            if case .deliver = verdict {
                closure(progress)
                delivered += 1
            }
        }
    }

    /// A timer that delivers held-back reports one ``ProgressThrottle/minimumInterval`` from now.
    private func makeTrailingTimer() -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: Self.timerQueue)
        timer.setEventHandler { [weak self] in self?.deliverPending() }
        timer.schedule(deadline: .now() + .nanoseconds(Int(ProgressThrottle.minimumInterval)))
        timer.resume()
        return timer
    }

    /// Delivers the reports the throttles held back (the trailing timer's handler).
    private func deliverPending() {
        delivery.withLock { delivered in
            let due = state.withLock { state -> (upload: TransferProgress?, download: TransferProgress?) in
                let due = state.machine.trailingTimerFired(now: Self.now)
                state.trailingTimer = due.reschedule ? makeTrailingTimer() : nil
                return (due.upload, due.download)
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

    /// A one-shot timer that checks for idleness `seconds` from now.
    private func makeIdleTimer(after seconds: TimeInterval) -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: Self.timerQueue)
        timer.setEventHandler { [weak self] in self?.idleTimerFired() }
        // At most a year (as the timeout URLSession is given): `Int(_:)` traps on nanoseconds past `Int.max`.
        timer.schedule(deadline: .now() + .nanoseconds(Int(min(max(0, seconds), 365 * 86_400) * 1e9)))
        timer.resume()
        return timer
    }

    /// Fails the transfer if no bytes moved for ``idleTimeout``; otherwise checks again when they would have.
    private func idleTimerFired() {
        handle { $0.idleTimerFired(now: Self.now) }
    }

    /// The deadline passed (told by ``DeadlineSweeper``): the transfer ends with its deadline error unless it
    /// finished meanwhile.
    func deadlineFired() {
        handle { $0.deadlineFired() }
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
