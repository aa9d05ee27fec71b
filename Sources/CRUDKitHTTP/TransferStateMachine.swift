@_spi(TransportKit) import CRUDKitCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one URLSession task of a ``URLSessionTransport``, as a value.
///
/// Each event (the task started, a response head or body bytes arrived, the task completed, a cancellation, a
/// timer fired…) is a `mutating` method that returns the ``Action`` the glue then performs: ``URLSessionTransfer``
/// keeps the machine behind its lock, calls an event method under the lock and performs the action outside it
/// (resumes the continuation, cancels the task, writes to the file, reports progress). The machine does no I/O and
/// reads no clock (the time comes with the event), so every event order can be checked without a network.
///
/// It is generic over the continuation and the task only so that tests can drive it with plain values; the
/// transport uses `CheckedContinuation` and `URLSessionTask`. The one completion of a transfer is the single
/// ``Action/finish(continuation:result:cancel:)`` that carries the continuation: once it is returned, the
/// machine holds no continuation and every later event returns ``Action/none``.
struct TransferStateMachine<Continuation, Task> {
    /// What the transfer was asked for.
    struct Settings {
        /// The largest body kept in memory, in bytes.
        var maximumBodySize: Int
        /// Whether the request expects a response body (`false` for `HEAD`).
        var expectsBody: Bool
        /// The file a 2xx body is written to, if any.
        var file: URLSessionTransfer.FileTarget?
        /// The idle timeout, in seconds.
        var idleTimeout: TimeInterval
        /// Whether the transfer runs its own idle watchdog (a fractional idle timeout, see ``URLSessionTransfer``).
        var watchesIdle: Bool
        /// The deadline in seconds, for its error, if any.
        var deadline: TimeInterval?
        /// The length of the request body, when known.
        var uploadLength: Int64?
    }

    /// What the glue does after an event.
    enum Action {
        /// Nothing.
        case none
        /// Go on: create the task (after ``start(_:)``), or let the body come (after ``receivedHead(_:expectedLength:now:)``).
        case proceed
        /// Arm the deadline timer (when there is a deadline) and the idle watchdog (when `watchIdle`), then resume
        /// the task.
        case resumeTask(watchIdle: Bool)
        /// The transfer ended before its task was created: unregister and cancel the task, resume nothing.
        case cancelTask(Task)
        /// Open the file at `url`, truncated to and positioned at `offset`, then report ``fileOpened()`` or
        /// ``fileFailed(_:)`` (the glue announced the 2xx head to the `onFileResponse` hook before this).
        case openFile(URL, offset: Int64)
        /// Write `data` to the open file, then report `progress` (download).
        case write(Data, progress: TransferProgress)
        /// Report `progress` (download); the bytes were kept in memory.
        case report(TransferProgress)
        /// Check for idleness again in `seconds`.
        case rearmIdle(after: TimeInterval)
        /// The one completion: stop the timers, close the file, resume `continuation` (when the transfer was
        /// started) with `result`, and cancel `cancel` (from another thread) when given.
        case finish(continuation: Continuation?, result: Result<URLSessionTransfer.Outcome, CRUDError>, cancel: Task?)
    }

    /// What becomes of a progress report.
    enum ProgressVerdict: Equatable {
        /// The transfer has ended: drop it.
        case drop
        /// Tell the observer now.
        case deliver
        /// Keep it for the trailing timer; start that timer when `scheduleTrailing`.
        case hold(scheduleTrailing: Bool)
    }

    /// Where the transfer is.
    enum Phase {
        /// Not ended; `continuation` and `task` are set as they come.
        case active
        /// Ended with `failure` before the continuation arrived: ``start(_:)`` resumes it with that failure.
        case failedBeforeStart(CRUDError)
        /// Ended; the completion was returned.
        case finished
    }

    let settings: Settings
    private(set) var phase = Phase.active
    private var continuation: Continuation?
    private(set) var task: Task?
    /// The response head, once it came.
    private(set) var response: HTTPURLResponse?
    /// The body kept in memory.
    private(set) var body = Data()
    /// Whether the body goes to the file (a 2xx with a file target, once the file is open).
    private(set) var writesToFile = false
    /// The most bytes dropped of the body of a redirect the follower follows (its body is not kept), or `nil` for a
    /// body that is the response's.
    private(set) var discarding: Int?
    /// The bytes already in the file before this response (a `206` continuing at ``URLSessionTransfer/FileTarget/resumeOffset``).
    private(set) var fileBase: Int64 = 0
    /// The body bytes received for this response.
    private(set) var received: Int64 = 0
    /// The bytes expected in all (the file's kept bytes included), when declared.
    private(set) var expected: Int64?
    /// When bytes last moved, in uptime nanoseconds (kept only when ``Settings/watchesIdle``).
    private(set) var lastActivity: UInt64 = 0
    private var uploadThrottle = ProgressThrottle()
    private var downloadThrottle = ProgressThrottle()
    /// The latest report each throttle held back, delivered by the trailing timer.
    private(set) var pendingUpload: TransferProgress?
    private(set) var pendingDownload: TransferProgress?
    /// Whether the trailing timer is armed.
    private(set) var trailingScheduled = false

    init(settings: Settings) {
        self.settings = settings
    }

    /// Whether the transfer has ended.
    var isFinished: Bool {
        if case .active = phase { return false }
        return true
    }

    // MARK: - Starting and ending

    /// The caller is waiting on `continuation`: ``Action/proceed`` (create the task), or the completion when the
    /// transfer already ended (cancelled before it started).
    mutating func start(_ continuation: Continuation) -> Action {
        switch phase {
        case .active:
            self.continuation = continuation
            return .proceed
        case .failedBeforeStart(let failure):
            phase = .finished
            return .finish(continuation: continuation, result: .failure(failure), cancel: nil)
        case .finished:
            return .finish(continuation: continuation, result: .failure(.cancelled), cancel: nil)
        }
    }

    /// The task was created: ``Action/resumeTask(watchIdle:)``, or ``Action/cancelTask(_:)`` when the transfer
    /// ended meanwhile.
    mutating func taskCreated(_ task: Task, now: UInt64) -> Action {
        guard case .active = phase else { return .cancelTask(task) }
        self.task = task
        if settings.watchesIdle { lastActivity = now }
        return .resumeTask(watchIdle: settings.watchesIdle)
    }

    /// Ends the transfer with `error` now (and cancels the task); nothing once it has ended.
    mutating func fail(_ error: CRUDError) -> Action {
        guard case .active = phase else { return .none }
        guard let continuation else {
            // Not started yet (so no task either): the continuation, when it comes, is resumed with this failure.
            phase = .failedBeforeStart(error)
            return .none
        }
        return finish(continuation, .failure(error), cancelling: true)
    }

    /// The calling `Task` was cancelled.
    mutating func cancelRequested() -> Action { fail(.cancelled) }

    /// The deadline timer fired.
    mutating func deadlineFired() -> Action {
        guard let deadline = settings.deadline else { return .none }
        return fail(.timedOut(.deadline(deadline)))
    }

    /// The idle watchdog fired at `now`: fails when no bytes moved for the idle timeout, otherwise says when to
    /// check again.
    mutating func idleTimerFired(now: UInt64) -> Action {
        guard case .active = phase else { return .none }
        let idleNanoseconds = UInt64(max(0, settings.idleTimeout) * 1e9)
        let quiet = now - min(lastActivity, now)
        if quiet >= idleNanoseconds { return fail(.timedOut(.idle(settings.idleTimeout))) }
        return .rearmIdle(after: Double(idleNanoseconds - quiet) / 1e9)
    }

    private mutating func finish(
        _ continuation: Continuation?, _ result: Result<URLSessionTransfer.Outcome, CRUDError>, cancelling: Bool
    ) -> Action {
        phase = .finished
        self.continuation = nil
        let task = self.task
        self.task = nil
        body = Data()
        pendingUpload = nil
        pendingDownload = nil
        return .finish(continuation: continuation, result: result, cancel: cancelling ? task : nil)
    }

    // MARK: - Delegate events

    /// The response head arrived (`expectedLength` is its declared body length; `drain`, for a redirect the follower
    /// follows, the most bytes of its body to read and drop, see `HTTPRequest.followedRedirectDrain(status:headers:)`):
    /// ``Action/proceed``, ``Action/openFile(_:offset:)`` for a 2xx into a file, or the completion (a declared length
    /// over the size limit, a `206` that does not continue at the kept bytes, a followed redirect whose declared
    /// length passes `drain`: answered without its body, the task cancelled).
    mutating func receivedHead(
        _ head: HTTPURLResponse, expectedLength: Int64?, now: UInt64, drain: Int? = nil
    ) -> Action {
        if settings.watchesIdle { lastActivity = now }
        guard case .active = phase else { return .none }
        response = head
        received = 0
        body = Data()
        writesToFile = false
        fileBase = 0
        discarding = nil
        if let drain {
            // A redirect that is followed: its body is dropped, whatever its size, not held within the size limit.
            // A short one is read to its end, so the connection carries the next hop; a longer one is not read.
            expected = nil
            // (A `HEAD` answer's length is the resource's: it has no body to leave unread.)
            if settings.expectsBody, drain == 0 || (expectedLength ?? 0) > drain {
                return finish(continuation, .success(outcome(head)), cancelling: true)
            }
            discarding = drain
            return .proceed
        }
        if let file = settings.file, (200..<300).contains(head.statusCode) {
            if head.statusCode == 206 && file.resumeOffset > 0 {
                let range = head.value(forHTTPHeaderField: "Content-Range") ?? ""
                let start = file.rangeStart ?? file.resumeOffset
                guard URLSessionTransfer.rangeStart(range) == start else {
                    let reason = "a 206 with Content-Range \"\(range)\" does not continue at byte \(start)"
                    return fail(
                        .transport(
                            underlying: URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: reason])))
                }
                fileBase = file.resumeOffset
            }
            // A server's declared length plus the kept bytes may not fit (`Content-Length: 9223372036854775800`).
            expected = expectedLength.flatMap { length in
                let (sum, overflow) = length.addingReportingOverflow(fileBase)
                return overflow ? nil : sum
            }
            return .openFile(file.url, offset: fileBase)
        }
        expected = expectedLength
        let hasBody = settings.expectsBody && head.statusCode != 204 && head.statusCode != 304
        if hasBody, let expectedLength, expectedLength > settings.maximumBodySize {
            return fail(.responseTooLarge(limit: settings.maximumBodySize))
        }
        return .proceed
    }

    /// A response that is not HTTP arrived.
    mutating func receivedNonHTTPResponse() -> Action {
        fail(.transport(underlying: URLError(.badServerResponse)))
    }

    /// The file of ``Action/openFile(_:offset:)`` is open: the body goes there.
    mutating func fileOpened() -> Action {
        guard case .active = phase else { return .none }
        writesToFile = true
        return .proceed
    }

    /// Opening or writing the file failed.
    mutating func fileFailed(_ error: any Error) -> Action {
        fail(error as? CRUDError ?? .transport(underlying: error))
    }

    /// Body bytes arrived: ``Action/write(_:progress:)`` or ``Action/report(_:)``, the completion when the body
    /// passes the size limit, nothing after the end (late data).
    mutating func receivedBody(_ data: Data, now: UInt64) -> Action {
        guard case .active = phase else { return .none }
        if settings.watchesIdle { lastActivity = now }
        received += Int64(data.count)
        if let drain = discarding {
            guard received > drain, let head = response else { return .none }
            return finish(continuation, .success(outcome(head)), cancelling: true)
        }
        if writesToFile {
            return .write(data, progress: downloadProgress)
        }
        guard body.count + data.count <= settings.maximumBodySize else {
            return fail(.responseTooLarge(limit: settings.maximumBodySize))
        }
        body.append(data)
        return .report(downloadProgress)
    }

    /// Request body bytes went out: the upload progress to report.
    mutating func sentBody(totalBytesSent: Int64, totalBytesExpected: Int64, now: UInt64) -> TransferProgress {
        if settings.watchesIdle { lastActivity = now }
        return TransferProgress(
            completedBytes: totalBytesSent,
            expectedBytes: settings.uploadLength ?? (totalBytesExpected > 0 ? totalBytesExpected : nil)
        )
    }

    private var downloadProgress: TransferProgress {
        TransferProgress(completedBytes: fileBase + received, expectedBytes: expected)
    }

    /// The final download report a completion without `error` gives first, when body bytes came.
    func finalDownloadProgress(error: (any Error)?) -> TransferProgress? {
        guard error == nil, case .active = phase, received > 0, discarding == nil else { return nil }
        return downloadProgress
    }

    /// The task completed, with `error` or without: the completion, unless the transfer already ended.
    mutating func taskCompleted(error: (any Error)?) -> Action {
        guard case .active = phase else { return .none }
        if let error {
            return finish(
                continuation,
                .failure(URLSessionTransport.crudError(for: error, idleTimeout: settings.idleTimeout)),
                cancelling: false)
        }
        guard let head = response else {
            return finish(
                continuation, .failure(.transport(underlying: URLError(.badServerResponse))), cancelling: false)
        }
        return finish(continuation, .success(outcome(head)), cancelling: false)
    }

    /// A server's authentication challenge came with `head` (FoundationNetworking; see
    /// ``URLSessionTransportDelegate``): the completion with the response and the body so far. The glue gives the
    /// head to ``receivedHead(_:expectedLength:now:)`` first when none came.
    mutating func challengeReceived(_ head: HTTPURLResponse) -> Action {
        guard case .active = phase else { return .none }
        return finish(continuation, .success(outcome(response ?? head)), cancelling: false)
    }

    private func outcome(_ head: HTTPURLResponse) -> URLSessionTransfer.Outcome {
        URLSessionTransfer.Outcome(
            response: head,
            body: body,
            wroteFile: writesToFile && (200..<300).contains(head.statusCode),
            fileLength: fileBase + received
        )
    }

    // MARK: - Progress

    /// Whether `progress` reaches the observer now, is held for the trailing timer, or is dropped (the transfer
    /// ended).
    mutating func progressReady(
        _ progress: TransferProgress, upload: Bool, final: Bool = false, now: UInt64
    )
        -> ProgressVerdict
    {
        guard case .active = phase else { return .drop }
        let admitted =
            upload
            ? uploadThrottle.admit(progress, final: final, now: now)
            : downloadThrottle.admit(progress, final: final, now: now)
        if upload { pendingUpload = admitted ? nil : progress }
        if !upload { pendingDownload = admitted ? nil : progress }
        if admitted { return .deliver }
        let schedule = !trailingScheduled
        trailingScheduled = true
        return .hold(scheduleTrailing: schedule)
    }

    /// The trailing timer fired at `now`: the held reports that are due, and whether to arm the timer again (a
    /// report came too soon after a newer admitted one).
    mutating func trailingTimerFired(
        now: UInt64
    ) -> (
        upload: TransferProgress?, download: TransferProgress?, reschedule: Bool
    ) {
        trailingScheduled = false
        guard case .active = phase else { return (nil, nil, false) }
        var due: (upload: TransferProgress?, download: TransferProgress?) = (nil, nil)
        if (pendingUpload?.completedBytes ?? .max) <= uploadThrottle.lastReported { pendingUpload = nil }
        if (pendingDownload?.completedBytes ?? .max) <= downloadThrottle.lastReported { pendingDownload = nil }
        if let pending = pendingUpload, uploadThrottle.admitTrailing(pending, now: now) {
            due.upload = pending
            pendingUpload = nil
        }
        if let pending = pendingDownload, downloadThrottle.admitTrailing(pending, now: now) {
            due.download = pending
            pendingDownload = nil
        }
        let reschedule = pendingUpload != nil || pendingDownload != nil
        if reschedule { trailingScheduled = true }
        return (due.upload, due.download, reschedule)
    }
}
