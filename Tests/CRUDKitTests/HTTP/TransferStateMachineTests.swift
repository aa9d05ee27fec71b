import Foundation
import Testing

@testable import CRUDKit
@_spi(TransportKit) @testable import CRUDKitHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession transfer's state machine driven without I/O: every event order the loopback fault tests produce
/// (and a few they cannot time), with the actions it returns and exactly one completion each.
@Suite struct TransferStateMachineTests {
    /// The continuation is an `Int` (the caller's number), the task a `String`.
    typealias Machine = TransferStateMachine<Int, String>

    static let url = URL(string: "http://127.0.0.1:1/file")!
    static let second: UInt64 = 1_000_000_000

    static func settings(
        maximum: Int = 100, expectsBody: Bool = true, file: URLSessionTransfer.FileTarget? = nil,
        idle: TimeInterval = 30, watchesIdle: Bool = false, deadline: TimeInterval? = nil, uploadLength: Int64? = nil
    ) -> Machine.Settings {
        Machine.Settings(
            maximumBodySize: maximum, expectsBody: expectsBody, file: file, idleTimeout: idle,
            watchesIdle: watchesIdle, deadline: deadline, uploadLength: uploadLength)
    }

    static func head(_ status: Int, _ fields: [String: String] = [:]) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)!
    }

    static func bytes(_ count: Int) -> Data { Data(repeating: 0x61, count: count) }

    /// A short, exact spelling of an error.
    static func describe(_ error: CRUDError) -> String {
        switch error {
        case .cancelled: "cancelled"
        case .timedOut(.idle(let seconds)): "idle(\(seconds))"
        case .timedOut(.deadline(let seconds)): "deadline(\(seconds))"
        case .responseTooLarge(let limit): "tooLarge(\(limit))"
        case .tooManyRedirects(let limit): "tooManyRedirects(\(limit))"
        case .transport(let failure):
            if let error = failure.underlying as? URLError { "transport(\(error.code.rawValue))" } else { "transport" }
        default: "\(error)"
        }
    }

    /// A short, exact spelling of an action.
    static func describe(_ action: Machine.Action) -> String {
        switch action {
        case .none: return "none"
        case .proceed: return "proceed"
        case .resumeTask(let watchIdle): return "resumeTask(idle: \(watchIdle))"
        case .cancelTask(let task): return "cancelTask(\(task))"
        case .openFile(let url, let offset): return "openFile(\(url.lastPathComponent), \(offset))"
        case .write(let data, let progress): return "write(\(data.count), \(describe(progress)))"
        case .report(let progress): return "report(\(describe(progress)))"
        case .rearmIdle(let seconds): return "rearmIdle(\((seconds * 1000).rounded()) ms)"
        case .finish(let continuation, let result, let task):
            let who = continuation.map(String.init) ?? "nil"
            let cancel = task.map { ", cancel: \($0)" } ?? ""
            switch result {
            case .success(let outcome):
                return
                    "finish(\(who), \(outcome.response.statusCode) body \(outcome.body.count) file \(outcome.wroteFile) "
                    + "length \(outcome.fileLength)\(cancel))"
            case .failure(let error):
                return "finish(\(who), \(describe(error))\(cancel))"
            }
        }
    }

    static func describe(_ progress: TransferProgress) -> String {
        "\(progress.completedBytes)/\(progress.expectedBytes.map(String.init) ?? "?")"
    }

    /// One machine and the actions it returned, in order.
    struct Trace {
        var machine: Machine
        var log: [String] = []

        init(_ settings: Machine.Settings = TransferStateMachineTests.settings()) {
            machine = Machine(settings: settings)
        }

        /// Runs one event; returns its action's spelling.
        @discardableResult
        mutating func on(_ event: (inout Machine) -> Machine.Action) -> String {
            let spelled = TransferStateMachineTests.describe(event(&machine))
            log.append(spelled)
            return spelled
        }

        /// Starts continuation 1 and task "task" at time 0.
        mutating func started() {
            on { $0.start(1) }
            on { $0.taskCreated("task", now: 0) }
        }

        /// How many actions resumed a continuation.
        var completions: Int { log.filter { $0.hasPrefix("finish(") && !$0.hasPrefix("finish(nil") }.count }

        /// Sends every event that may still come after an end, and checks each is ignored.
        mutating func lateEventsAreIgnored(sourceLocation: SourceLocation = #_sourceLocation) {
            let late = [
                on { $0.receivedHead(TransferStateMachineTests.head(200), expectedLength: 3, now: 0) },
                on { $0.receivedBody(TransferStateMachineTests.bytes(3), now: 0) },
                on { $0.taskCompleted(error: URLError(.cancelled)) },
                on { $0.taskCompleted(error: nil) },
                on { $0.cancelRequested() },
                on { $0.deadlineFired() },
                on { $0.idleTimerFired(now: 1_000 * TransferStateMachineTests.second) },
                on { $0.challengeReceived(TransferStateMachineTests.head(401)) },
                on { $0.fileOpened() },
            ]
            #expect(late.allSatisfy { $0 == "none" }, "\(late)", sourceLocation: sourceLocation)
            #expect(machine.isFinished, sourceLocation: sourceLocation)
        }
    }

    // MARK: - Success

    @Test func bodyInMemoryCompletesOnceWithTheResponse() {
        var trace = Trace()
        trace.started()
        trace.on { $0.receivedHead(Self.head(200), expectedLength: 10, now: 0) }
        trace.on { $0.receivedBody(Self.bytes(4), now: 0) }
        trace.on { $0.receivedBody(Self.bytes(6), now: 0) }
        #expect(trace.machine.finalDownloadProgress(error: nil).map(Self.describe) == "10/10")
        trace.on { $0.taskCompleted(error: nil) }
        #expect(
            trace.log == [
                "proceed", "resumeTask(idle: false)", "proceed", "report(4/10)", "report(10/10)",
                "finish(1, 200 body 10 file false length 10)",
            ])
        #expect(trace.completions == 1)
        trace.lateEventsAreIgnored()
        #expect(trace.completions == 1)
    }

    // MARK: - Faults before and inside the head

    /// The server closes before the status line, or inside the headers: URLSession reports an error and no head.
    @Test(arguments: [URLError.Code.networkConnectionLost, .badServerResponse, .cannotParseResponse])
    func closeBeforeTheHeadIsATransportError(code: URLError.Code) {
        var trace = Trace()
        trace.started()
        trace.on { $0.taskCompleted(error: URLError(code)) }
        #expect(trace.log.last == "finish(1, transport(\(code.rawValue)))")
        #expect(trace.completions == 1)
        trace.lateEventsAreIgnored()
    }

    /// A completion without an error and without a head is not an answer.
    @Test func completionWithoutAHeadIsABadServerResponse() {
        var trace = Trace()
        trace.started()
        trace.on { $0.taskCompleted(error: nil) }
        #expect(trace.log.last == "finish(1, transport(\(URLError.Code.badServerResponse.rawValue)))")
        #expect(trace.completions == 1)
    }

    @Test func aResponseThatIsNotHTTPFailsAndCancelsTheTask() {
        var trace = Trace()
        trace.started()
        trace.on { $0.receivedNonHTTPResponse() }
        #expect(trace.log.last == "finish(1, transport(\(URLError.Code.badServerResponse.rawValue)), cancel: task)")
        trace.lateEventsAreIgnored()
        #expect(trace.completions == 1)
    }

    // MARK: - Faults mid-body

    /// A short body: the head declares 10 bytes, 4 come, then the connection closes.
    @Test func closeMidBodyIsATransportErrorAfterTheProgressSoFar() {
        var trace = Trace()
        trace.started()
        trace.on { $0.receivedHead(Self.head(200), expectedLength: 10, now: 0) }
        trace.on { $0.receivedBody(Self.bytes(4), now: 0) }
        #expect(trace.machine.finalDownloadProgress(error: URLError(.networkConnectionLost)) == nil)
        trace.on { $0.taskCompleted(error: URLError(.networkConnectionLost)) }
        #expect(
            trace.log.suffix(3) == [
                "proceed", "report(4/10)",
                "finish(1, transport(\(URLError.Code.networkConnectionLost.rawValue)))",
            ])
        #expect(trace.completions == 1)
        trace.lateEventsAreIgnored()
    }

    // MARK: - Timeouts

    /// No answer: URLSession's own request timeout fires.
    @Test func urlSessionTimeoutIsTheIdleTimeout() {
        var trace = Trace(Self.settings(idle: 2))
        trace.started()
        trace.on { $0.taskCompleted(error: URLError(.timedOut)) }
        #expect(trace.log.last == "finish(1, idle(2.0))")
        #expect(trace.completions == 1)
    }

    /// The exact watchdog for a fractional idle timeout: bytes moving push it back, silence ends the transfer.
    @Test func idleWatchdogRearmsWhileBytesMoveAndFailsAfterSilence() {
        let ms = Self.second / 1000
        var trace = Trace(Self.settings(idle: 0.5, watchesIdle: true))
        trace.on { $0.start(1) }
        trace.on { $0.taskCreated("task", now: 1000 * ms) }
        trace.on { $0.idleTimerFired(now: 1300 * ms) }
        trace.on { $0.receivedHead(Self.head(200), expectedLength: nil, now: 1400 * ms) }
        trace.on { $0.idleTimerFired(now: 1500 * ms) }
        _ = trace.machine.sentBody(totalBytesSent: 1, totalBytesExpected: 1, now: 1600 * ms)
        trace.on { $0.idleTimerFired(now: 1900 * ms) }
        trace.on { $0.receivedBody(Self.bytes(1), now: 2000 * ms) }
        trace.on { $0.idleTimerFired(now: 2500 * ms) }
        #expect(
            trace.log == [
                "proceed", "resumeTask(idle: true)", "rearmIdle(200.0 ms)", "proceed", "rearmIdle(400.0 ms)",
                "rearmIdle(200.0 ms)", "report(1/?)", "finish(1, idle(0.5), cancel: task)",
            ])
        #expect(trace.completions == 1)
        trace.lateEventsAreIgnored()
    }

    @Test(arguments: [false, true])
    func deadlineEndsTheTransferBeforeOrAfterTheHead(afterHead: Bool) {
        var trace = Trace(Self.settings(deadline: 2))
        trace.started()
        if afterHead {
            trace.on { $0.receivedHead(Self.head(200), expectedLength: nil, now: 0) }
            trace.on { $0.receivedBody(Self.bytes(1), now: 0) }
        }
        trace.on { $0.deadlineFired() }
        #expect(trace.log.last == "finish(1, deadline(2.0), cancel: task)")
        #expect(trace.completions == 1)
        // URLSession then reports the cancelled task.
        trace.lateEventsAreIgnored()
    }

    @Test func aDeadlineTimerWithoutADeadlineDoesNothing() {
        var trace = Trace()
        trace.started()
        #expect(trace.on { $0.deadlineFired() } == "none")
        #expect(!trace.machine.isFinished)
    }

    // MARK: - Size limit

    @Test func declaredLengthOverTheLimitFailsAtTheHead() {
        var trace = Trace(Self.settings(maximum: 100))
        trace.started()
        trace.on { $0.receivedHead(Self.head(200, ["Content-Length": "101"]), expectedLength: 101, now: 0) }
        #expect(trace.log.last == "finish(1, tooLarge(100), cancel: task)")
        #expect(trace.completions == 1)
        trace.lateEventsAreIgnored()
    }

    @Test func undeclaredBodyOverTheLimitFailsAtTheByteThatPassesIt() {
        var trace = Trace(Self.settings(maximum: 100))
        trace.started()
        trace.on { $0.receivedHead(Self.head(200), expectedLength: nil, now: 0) }
        trace.on { $0.receivedBody(Self.bytes(60), now: 0) }
        trace.on { $0.receivedBody(Self.bytes(40), now: 0) }
        trace.on { $0.receivedBody(Self.bytes(1), now: 0) }
        #expect(trace.log.suffix(3) == ["report(60/?)", "report(100/?)", "finish(1, tooLarge(100), cancel: task)"])
        #expect(trace.completions == 1)
        // Late data after the failure is dropped, not kept.
        trace.lateEventsAreIgnored()
        #expect(trace.machine.body.isEmpty)
    }

    /// HEAD, 204 and 304 have no body, whatever length they declare.
    @Test(arguments: [(200, false), (204, true), (304, true)])
    func declaredLengthWithoutABodyIsNotChecked(status: Int, expectsBody: Bool) {
        var trace = Trace(Self.settings(maximum: 100, expectsBody: expectsBody))
        trace.started()
        #expect(trace.on { $0.receivedHead(Self.head(status), expectedLength: 1_000, now: 0) } == "proceed")
        trace.on { $0.taskCompleted(error: nil) }
        #expect(trace.log.last == "finish(1, \(status) body 0 file false length 0)")
    }

    // MARK: - Cancellation

    @Test func cancelBeforeTheResponseCancelsTheTaskOnce() {
        var trace = Trace()
        trace.started()
        trace.on { $0.cancelRequested() }
        trace.on { $0.cancelRequested() }
        #expect(trace.log.suffix(2) == ["finish(1, cancelled, cancel: task)", "none"])
        // Completion after cancel: URLSession reports the cancelled task.
        trace.lateEventsAreIgnored()
        #expect(trace.completions == 1)
    }

    @Test func cancelAfterTheResponseDropsTheBody() {
        var trace = Trace()
        trace.started()
        trace.on { $0.receivedHead(Self.head(200), expectedLength: 10, now: 0) }
        trace.on { $0.receivedBody(Self.bytes(5), now: 0) }
        trace.on { $0.cancelRequested() }
        #expect(trace.log.last == "finish(1, cancelled, cancel: task)")
        #expect(trace.machine.body.isEmpty)
        trace.lateEventsAreIgnored()
        #expect(trace.completions == 1)
    }

    /// Cancelled before the continuation came: the continuation is resumed at once, no task is made.
    @Test func cancelBeforeStartResumesTheContinuationWhenItComes() {
        var trace = Trace()
        trace.on { $0.cancelRequested() }
        trace.on { $0.cancelRequested() }
        trace.on { $0.start(7) }
        trace.on { $0.start(8) }
        #expect(trace.log == ["none", "none", "finish(7, cancelled)", "finish(8, cancelled)"])
        #expect(trace.machine.task == nil)
    }

    /// Cancelled between the continuation and the task: the task, once made, is cancelled and never resumed.
    @Test func cancelBeforeTheTaskExistsCancelsTheTaskWhenItComes() {
        var trace = Trace()
        trace.on { $0.start(1) }
        trace.on { $0.cancelRequested() }
        trace.on { $0.taskCreated("late", now: 0) }
        #expect(trace.log == ["proceed", "finish(1, cancelled)", "cancelTask(late)"])
        trace.lateEventsAreIgnored()
        #expect(trace.completions == 1)
    }

    /// URLSession reports its own cancellation (Linux: `URLError.cancelled`) as ``CRUDError/cancelled``.
    @Test func urlSessionCancellationIsCancelled() {
        var trace = Trace()
        trace.started()
        trace.on { $0.taskCompleted(error: URLError(.cancelled)) }
        #expect(trace.log.last == "finish(1, cancelled)")
    }

    // MARK: - Files, pause and resume

    @Test func twoHundredIntoAFileWritesFromZero() {
        var trace = Trace(Self.settings(maximum: 10, file: .init(url: Self.url)))
        trace.started()
        trace.on { $0.receivedHead(Self.head(200), expectedLength: 50, now: 0) }
        trace.on { $0.fileOpened() }
        trace.on { $0.receivedBody(Self.bytes(30), now: 0) }
        trace.on { $0.receivedBody(Self.bytes(20), now: 0) }
        trace.on { $0.taskCompleted(error: nil) }
        // The memory limit does not apply to a file.
        #expect(
            trace.log.suffix(5) == [
                "openFile(file, 0)", "proceed", "write(30, 30/50)", "write(20, 50/50)",
                "finish(1, 200 body 0 file true length 50)",
            ])
        #expect(trace.completions == 1)
    }

    /// Resuming a paused download: a 206 continuing at the kept bytes is appended after them, and progress
    /// counts them.
    @Test func rangedAnswerContinuesAtTheKeptBytes() {
        var trace = Trace(Self.settings(file: .init(url: Self.url, resumeOffset: 100)))
        trace.started()
        let head = Self.head(206, ["Content-Range": "bytes 100-199/200", "Content-Length": "100"])
        trace.on { $0.receivedHead(head, expectedLength: 100, now: 0) }
        trace.on { $0.fileOpened() }
        trace.on { $0.receivedBody(Self.bytes(50), now: 0) }
        #expect(trace.machine.finalDownloadProgress(error: nil).map(Self.describe) == "150/200")
        trace.on { $0.taskCompleted(error: nil) }
        #expect(
            trace.log.suffix(4) == [
                "openFile(file, 100)", "proceed", "write(50, 150/200)", "finish(1, 206 body 0 file true length 150)",
            ])
    }

    /// A 206 that starts elsewhere would corrupt the file: it is refused before anything is written.
    @Test func rangedAnswerAtTheWrongOffsetFails() {
        var trace = Trace(Self.settings(file: .init(url: Self.url, resumeOffset: 100)))
        trace.started()
        trace.on { $0.receivedHead(Self.head(206, ["Content-Range": "bytes 0-199/200"]), expectedLength: 200, now: 0) }
        #expect(trace.log.last == "finish(1, transport(\(URLError.Code.badServerResponse.rawValue)), cancel: task)")
        trace.lateEventsAreIgnored()
        #expect(trace.completions == 1)
    }

    /// A resumed 206 declaring a length near `Int64.max` (issue 28): its length plus the kept bytes does not fit, so
    /// the total is unknown instead of a trap; a 206 continuing a caller's own range starts where that range does.
    @Test func hugeDeclaredLengthOnAResumedAnswerDoesNotTrap() {
        var trace = Trace(Self.settings(file: .init(url: Self.url, resumeOffset: 50)))
        trace.started()
        let head = Self.head(206, ["Content-Range": "bytes 50-99/100", "Content-Length": "9223372036854775800"])
        trace.on { $0.receivedHead(head, expectedLength: 9_223_372_036_854_775_800, now: 0) }
        #expect(trace.log.last == "openFile(file, 50)")
        #expect(trace.machine.expected == nil)

        var framed = Trace(Self.settings(file: .init(url: Self.url, resumeOffset: 50, rangeStart: 150)))
        framed.started()
        framed.on {
            $0.receivedHead(Self.head(206, ["Content-Range": "bytes 150-199/1000"]), expectedLength: 50, now: 0)
        }
        #expect(framed.log.last == "openFile(file, 50)")
        #expect(framed.machine.expected == 100)
    }

    /// A server that ignores `Range` answers 200: the file is written again from byte 0.
    @Test func fullAnswerToARangedRequestRestartsTheFile() {
        var trace = Trace(Self.settings(file: .init(url: Self.url, resumeOffset: 100)))
        trace.started()
        trace.on { $0.receivedHead(Self.head(200), expectedLength: 200, now: 0) }
        trace.on { $0.fileOpened() }
        trace.on { $0.receivedBody(Self.bytes(10), now: 0) }
        #expect(trace.log.suffix(3) == ["openFile(file, 0)", "proceed", "write(10, 10/200)"])
    }

    /// A non-2xx answer to a download keeps its body in memory, within the limit, and writes no file.
    @Test func errorStatusIntoAFileStaysInMemory() {
        var trace = Trace(Self.settings(maximum: 100, file: .init(url: Self.url)))
        trace.started()
        trace.on { $0.receivedHead(Self.head(404), expectedLength: 9, now: 0) }
        trace.on { $0.receivedBody(Self.bytes(9), now: 0) }
        trace.on { $0.taskCompleted(error: nil) }
        #expect(trace.log.suffix(3) == ["proceed", "report(9/9)", "finish(1, 404 body 9 file false length 9)"])
    }

    @Test func aFileThatCannotBeWrittenFailsTheTransfer() {
        var trace = Trace(Self.settings(file: .init(url: Self.url)))
        trace.started()
        trace.on { $0.receivedHead(Self.head(200), expectedLength: nil, now: 0) }
        trace.on { $0.fileFailed(CocoaError(.fileWriteNoPermission)) }
        #expect(trace.log.last == "finish(1, transport, cancel: task)")
        trace.lateEventsAreIgnored()
        #expect(trace.completions == 1)
    }

    // MARK: - Authentication challenge (FoundationNetworking)

    @Test func challengeEndsWithTheUnauthorizedResponse() {
        var trace = Trace()
        trace.started()
        trace.on { $0.receivedHead(Self.head(401), expectedLength: 2, now: 0) }
        trace.on { $0.receivedBody(Self.bytes(2), now: 0) }
        trace.on { $0.challengeReceived(Self.head(401)) }
        #expect(trace.log.last == "finish(1, 401 body 2 file false length 2)")
        trace.lateEventsAreIgnored()
        #expect(trace.completions == 1)
    }

    // MARK: - Progress

    @Test func progressIsThrottledHeldAndDeliveredByTheTrailingTimer() {
        var machine = Machine(settings: Self.settings())
        _ = machine.start(1)
        let first = TransferProgress(completedBytes: 1, expectedBytes: 1_000)
        let second = TransferProgress(completedBytes: 200, expectedBytes: 1_000)
        let third = TransferProgress(completedBytes: 300, expectedBytes: 1_000)
        #expect(machine.progressReady(first, upload: false, now: 0) == .deliver)
        #expect(machine.progressReady(second, upload: false, now: 1) == .hold(scheduleTrailing: true))
        #expect(machine.progressReady(third, upload: false, now: 2) == .hold(scheduleTrailing: false))
        let due = machine.trailingTimerFired(now: ProgressThrottle.minimumInterval + 1)
        #expect(due.download == third && due.upload == nil && !due.reschedule)
        #expect(machine.pendingDownload == nil && !machine.trailingScheduled)
        // The final report is never held back.
        let last = TransferProgress(completedBytes: 301, expectedBytes: 1_000)
        #expect(
            machine.progressReady(last, upload: false, final: true, now: ProgressThrottle.minimumInterval + 2)
                == .deliver)
        _ = machine.cancelRequested()
        #expect(machine.progressReady(last, upload: true, final: true, now: Self.second) == .drop)
        let after = machine.trailingTimerFired(now: Self.second)
        #expect(after.upload == nil && after.download == nil && !after.reschedule)
    }

    @Test func uploadProgressUsesTheKnownBodyLength() {
        var machine = Machine(settings: Self.settings(uploadLength: 42))
        #expect(machine.sentBody(totalBytesSent: 10, totalBytesExpected: -1, now: 0).expectedBytes == 42)
        var unknown = Machine(settings: Self.settings())
        #expect(unknown.sentBody(totalBytesSent: 10, totalBytesExpected: -1, now: 0).expectedBytes == nil)
        #expect(unknown.sentBody(totalBytesSent: 10, totalBytesExpected: 20, now: 0).expectedBytes == 20)
    }

    // MARK: - Any order

    /// A small deterministic generator (SplitMix64), so a failing order can be replayed from its seed.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    /// 2,000 random orders of up to 12 events (every event the glue can deliver, before and after the start):
    /// the continuation is resumed exactly once once URLSession reports the task complete, nothing is resumed
    /// twice, and nothing but a late task's cancellation follows the completion.
    @Test func anyEventOrderCompletesExactlyOnce() {
        var generator = Generator(state: 16)
        for seed in 0..<2_000 {
            let file = generator.next(2) == 0
            var trace = Trace(
                Self.settings(
                    maximum: 100, file: file ? .init(url: Self.url, resumeOffset: 10) : nil, idle: 0.5,
                    watchesIdle: true, deadline: 2))
            let count = generator.next(12)
            let startAt = generator.next(count + 1)
            var now: UInt64 = 0
            var started = false
            for index in 0...count {
                if index == startAt {
                    if trace.on({ $0.start(1) }) == "proceed" { trace.on { $0.taskCreated("task", now: now) } }
                    started = true
                }
                guard index < count else { break }
                now += UInt64(generator.next(400)) * Self.second / 1000
                let length = generator.next(3) == 0 ? nil : Int64(generator.next(200))
                switch generator.next(12) {
                case 0: trace.on { $0.cancelRequested() }
                case 1: trace.on { $0.deadlineFired() }
                case 2: trace.on { $0.idleTimerFired(now: now) }
                case 3:
                    let status = [200, 206, 404, 204][generator.next(4)]
                    let head = Self.head(status, ["Content-Range": "bytes \(generator.next(2) * 10)-99/100"])
                    trace.on { $0.receivedHead(head, expectedLength: length, now: now) }
                case 4, 5:
                    let data = Self.bytes(generator.next(80))
                    trace.on { $0.receivedBody(data, now: now) }
                case 6: trace.on { $0.fileOpened() }
                case 7: trace.on { $0.fileFailed(CocoaError(.fileWriteUnknown)) }
                case 8: trace.on { $0.challengeReceived(Self.head(401)) }
                case 9: trace.on { $0.receivedNonHTTPResponse() }
                case 10: trace.on { $0.taskCompleted(error: nil) }
                default: trace.on { $0.taskCompleted(error: URLError(.networkConnectionLost)) }
                }
            }
            #expect(started)
            // URLSession always reports a created task complete in the end.
            trace.on { $0.taskCompleted(error: URLError(.cancelled)) }
            #expect(trace.completions == 1, "seed \(seed): \(trace.log)")
            if let end = trace.log.firstIndex(where: { $0.hasPrefix("finish(1") }) {
                let after = trace.log[(end + 1)...].filter { $0 != "none" && $0 != "cancelTask(task)" }
                #expect(after.isEmpty, "seed \(seed): \(trace.log)")
            }
        }
    }
}
