import CRUDKit
@_spi(TransportKit) import CRUDKitCore
import Foundation
import Testing

@testable import CRUDKitAsyncHTTPClient

/// The adapter's response state machine driven without I/O: the event orders of the fault tests, with the actions
/// it returns and exactly one terminal action each.
@Suite struct ResponseStateMachineTests {
    static let ms: UInt64 = 1_000_000

    static func describe(_ error: CRUDError) -> String {
        switch error {
        case .cancelled: "cancelled"
        case .timedOut(.idle(let seconds)): "idle(\(seconds))"
        case .timedOut(.deadline(let seconds)): "deadline(\(seconds))"
        case .responseTooLarge(let limit): "tooLarge(\(limit))"
        case .transport: "transport"
        default: "\(error)"
        }
    }

    static func describe(_ progress: TransferProgress?) -> String {
        guard let progress else { return "-" }
        return "\(progress.completedBytes)/\(progress.expectedBytes.map(String.init) ?? "?")"
    }

    static func describe(_ action: ResponseStateMachine.Action) -> String {
        switch action {
        case .none: "none"
        case .collect: "collect"
        case .openFile(let offset, let progress): "openFile(\(offset), \(describe(progress)))"
        case .keep(let progress): "keep(\(describe(progress)))"
        case .write(let progress): "write(\(describe(progress)))"
        case .finish(let final): "finish(\(describe(final)))"
        case .fail(let error): "fail(\(describe(error)))"
        case .drop: "drop"
        case .stop: "stop"
        }
    }

    /// One machine and the actions it returned, in order.
    struct Trace {
        var machine: ResponseStateMachine
        var log: [String] = []

        init(
            maximum: Int = 100, target: ResponseStateMachine.Target = .memory, deadline: UInt64 = .max,
            limit: TimeInterval? = nil, reportsProgress: Bool = true, drain: Int? = nil
        ) {
            machine = ResponseStateMachine(
                maximumBodySize: maximum, target: target, deadline: deadline, limit: limit,
                reportsProgress: reportsProgress, drain: drain)
        }

        @discardableResult
        mutating func on(_ event: (inout ResponseStateMachine) -> ResponseStateMachine.Action) -> String {
            let spelled = ResponseStateMachineTests.describe(event(&machine))
            log.append(spelled)
            return spelled
        }

        /// How many terminal actions were returned.
        var endings: Int { log.filter { $0.hasPrefix("finish(") || $0.hasPrefix("fail(") || $0 == "stop" }.count }

        /// Every event that may still come after the end is ignored.
        mutating func lateEventsAreIgnored(sourceLocation: SourceLocation = #_sourceLocation) {
            let late = [
                on { $0.receivedHead(status: 200, contentLength: nil, contentRange: nil, now: 0) },
                on { $0.receivedPiece(count: 1, now: 0) },
                on { $0.bodyEnded(now: 0) },
                on { $0.failed(.cancelled) },
            ]
            #expect(late.allSatisfy { $0 == "none" }, "\(late)", sourceLocation: sourceLocation)
            #expect(machine.phase == .ended, sourceLocation: sourceLocation)
        }
    }

    @Test func bodyInMemoryEndsOnceWithTheFinalReport() {
        var trace = Trace()
        trace.on { $0.receivedHead(status: 200, contentLength: 10, contentRange: nil, now: 0) }
        trace.on { $0.receivedPiece(count: 4, now: 0) }
        trace.on { $0.receivedPiece(count: 6, now: 1) }
        trace.on { $0.bodyEnded(now: 2) }
        // 10/10 is complete, so the throttle lets it through at once; the final one is then not repeated.
        #expect(trace.log == ["collect", "keep(4/10)", "keep(10/10)", "finish(-)"])
        #expect(trace.endings == 1)
        trace.lateEventsAreIgnored()
    }

    @Test func withoutAnObserverNothingIsReported() {
        var trace = Trace(reportsProgress: false)
        trace.on { $0.receivedHead(status: 200, contentLength: nil, contentRange: nil, now: 0) }
        trace.on { $0.receivedPiece(count: 4, now: 0) }
        trace.on { $0.bodyEnded(now: 0) }
        #expect(trace.log == ["collect", "keep(-)", "finish(-)"])
    }

    /// A connection closed before the status line or inside the headers: AsyncHTTPClient throws before any head.
    @Test func closeBeforeTheHeadFailsOnce() {
        var trace = Trace()
        trace.on { $0.failed(.transport(underlying: URLError(.networkConnectionLost))) }
        #expect(trace.log == ["fail(transport)"])
        trace.lateEventsAreIgnored()
        #expect(trace.endings == 1)
    }

    /// A short body: the stream throws after some pieces.
    @Test func closeMidBodyFailsAfterTheProgressSoFar() {
        var trace = Trace()
        trace.on { $0.receivedHead(status: 200, contentLength: 10, contentRange: nil, now: 0) }
        trace.on { $0.receivedPiece(count: 4, now: 0) }
        trace.on { $0.failed(.transport(underlying: URLError(.networkConnectionLost))) }
        #expect(trace.log == ["collect", "keep(4/10)", "fail(transport)"])
        trace.lateEventsAreIgnored()
        #expect(trace.endings == 1)
    }

    @Test func idleTimeoutBeforeOrDuringTheBodyFailsOnce() {
        for afterHead in [false, true] {
            var trace = Trace()
            if afterHead { trace.on { $0.receivedHead(status: 200, contentLength: nil, contentRange: nil, now: 0) } }
            trace.on { $0.failed(.timedOut(.idle(2))) }
            trace.on { $0.failed(.timedOut(.idle(2))) }
            #expect(trace.log.suffix(2) == ["fail(idle(2.0))", "none"])
            #expect(trace.endings == 1)
        }
    }

    /// A piece that arrives after the deadline ends the body (memory and file alike).
    @Test(arguments: [ResponseStateMachine.Target.memory, .file])
    func pieceAfterTheDeadlineFails(target: ResponseStateMachine.Target) {
        var trace = Trace(target: target, deadline: 100 * Self.ms, limit: 1)
        trace.on { $0.receivedHead(status: 200, contentLength: nil, contentRange: nil, now: 10 * Self.ms) }
        trace.on { $0.receivedPiece(count: 1, now: 100 * Self.ms) }
        trace.on { $0.receivedPiece(count: 1, now: 100 * Self.ms + 1) }
        #expect(trace.log.suffix(2) == [target == .memory ? "keep(1/?)" : "write(1/?)", "fail(deadline(1.0))"])
        trace.lateEventsAreIgnored()
        #expect(trace.endings == 1)
    }

    /// Without a deadline, a late clock never fails.
    @Test func noDeadlineNeverFails() {
        var trace = Trace(deadline: 0, limit: nil)
        trace.on { $0.receivedHead(status: 200, contentLength: nil, contentRange: nil, now: 0) }
        #expect(trace.on { $0.receivedPiece(count: 1, now: .max) } == "keep(1/?)")
    }

    @Test func declaredLengthOverTheLimitFailsAtTheHead() {
        var trace = Trace(maximum: 100)
        trace.on { $0.receivedHead(status: 200, contentLength: 101, contentRange: nil, now: 0) }
        #expect(trace.log == ["fail(tooLarge(100))"])
        trace.lateEventsAreIgnored()
        #expect(trace.endings == 1)
    }

    @Test func undeclaredBodyOverTheLimitFailsAtThePieceThatPassesIt() {
        var trace = Trace(maximum: 100)
        trace.on { $0.receivedHead(status: 200, contentLength: nil, contentRange: nil, now: 0) }
        trace.on { $0.receivedPiece(count: 100, now: 0) }
        trace.on { $0.receivedPiece(count: 1, now: 0) }
        #expect(trace.log == ["collect", "keep(100/?)", "fail(tooLarge(100))"])
        trace.lateEventsAreIgnored()
        #expect(trace.endings == 1)
    }

    /// A 2xx into a file is not held to the memory limit; an error status is, and stays in memory.
    @Test func fileBodiesAreNotLimitedButErrorBodiesAre() {
        var file = Trace(maximum: 10, target: .file)
        file.on { $0.receivedHead(status: 200, contentLength: 50, contentRange: nil, now: 0) }
        file.on { $0.receivedPiece(count: 50, now: 0) }
        file.on { $0.bodyEnded(now: 0) }
        #expect(file.log == ["openFile(0, -)", "write(50/50)", "finish(-)"])
        var error = Trace(maximum: 10, target: .file)
        error.on { $0.receivedHead(status: 500, contentLength: 50, contentRange: nil, now: 0) }
        #expect(error.log == ["fail(tooLarge(10))"])
    }

    @Test func cancelBeforeOrAfterTheHeadFailsOnce() {
        var before = Trace()
        before.on { $0.failed(.cancelled) }
        before.on { $0.failed(.cancelled) }
        #expect(before.log == ["fail(cancelled)", "none"])
        before.lateEventsAreIgnored()
        var after = Trace()
        after.on { $0.receivedHead(status: 200, contentLength: nil, contentRange: nil, now: 0) }
        after.on { $0.receivedPiece(count: 3, now: 0) }
        after.on { $0.failed(.cancelled) }
        #expect(after.log == ["collect", "keep(3/?)", "fail(cancelled)"])
        after.lateEventsAreIgnored()
        #expect(after.endings == 1)
    }

    /// Resuming a paused download: a 206 at the kept bytes continues after them, and progress counts them.
    @Test func rangedAnswerContinuesAtTheKeptBytes() {
        var trace = Trace(target: .append(offset: 100))
        trace.on { $0.receivedHead(status: 206, contentLength: 100, contentRange: "bytes 100-199/200", now: 0) }
        trace.on { $0.receivedPiece(count: 50, now: 0) }
        trace.on { $0.receivedPiece(count: 50, now: 1) }
        trace.on { $0.bodyEnded(now: 2) }
        #expect(trace.log == ["openFile(100, 100/200)", "write(-)", "write(200/200)", "finish(-)"])
        #expect(trace.machine.completed == 200)
    }

    /// A resumed 206 declaring a length near `Int64.max` (issue 28): the total is unknown instead of a trap; a 206
    /// continuing a caller's own range starts where that range does.
    @Test func hugeDeclaredLengthOnAResumedAnswerDoesNotTrap() {
        var trace = Trace(target: .append(offset: 50))
        trace.on {
            $0.receivedHead(
                status: 206, contentLength: 9_223_372_036_854_775_800, contentRange: "bytes 50-99/100", now: 0)
        }
        #expect(trace.log.first?.hasPrefix("openFile(50") == true)
        #expect(trace.machine.expected == nil)

        var framed = Trace(target: .append(offset: 50, rangeStart: 150))
        framed.on { $0.receivedHead(status: 206, contentLength: 50, contentRange: "bytes 150-199/1000", now: 0) }
        #expect(framed.log.first?.hasPrefix("openFile(50") == true)
        #expect(framed.machine.expected == 100)
    }

    @Test func rangedAnswerAtTheWrongOffsetFails() {
        var trace = Trace(target: .append(offset: 100))
        trace.on { $0.receivedHead(status: 206, contentLength: 200, contentRange: "bytes 0-199/200", now: 0) }
        #expect(trace.log == ["fail(transport)"])
        trace.lateEventsAreIgnored()
    }

    /// A server that ignores `Range` answers 200: the file is written again from byte 0; an error status stays in
    /// memory.
    @Test func fullOrErrorAnswerToARangedRequest() {
        var full = Trace(target: .append(offset: 100))
        full.on { $0.receivedHead(status: 200, contentLength: 200, contentRange: nil, now: 0) }
        #expect(full.log == ["openFile(0, -)"])
        var missing = Trace(target: .append(offset: 100))
        missing.on { $0.receivedHead(status: 404, contentLength: 9, contentRange: nil, now: 0) }
        #expect(missing.log == ["collect"])
    }

    @Test func finalReportAfterAThrottledBody() {
        var trace = Trace()
        trace.on { $0.receivedHead(status: 200, contentLength: nil, contentRange: nil, now: 0) }
        trace.on { $0.receivedPiece(count: 10, now: 0) }
        trace.on { $0.receivedPiece(count: 10, now: 1) }
        trace.on { $0.bodyEnded(now: 2) }
        #expect(trace.log == ["collect", "keep(10/?)", "keep(-)", "finish(20/20)"])
    }

    // MARK: - A followed redirect's body (dropped, never held within the limit)

    @Test func aFollowedRedirectsShortBodyIsDroppedToItsEnd() {
        var trace = Trace(maximum: 100, drain: 3072)
        trace.on { $0.receivedHead(status: 302, contentLength: 500, contentRange: nil, now: 0) }
        trace.on { $0.receivedPiece(count: 200, now: 0) }
        trace.on { $0.receivedPiece(count: 300, now: 0) }
        trace.on { $0.bodyEnded(now: 0) }
        #expect(trace.log == ["collect", "drop", "drop", "finish(-)"])
        trace.lateEventsAreIgnored()
    }

    @Test func aFollowedRedirectPastTheDrainStopsAtTheHeadOrAtThePiecePassingIt() {
        var declared = Trace(maximum: 100, drain: 3072)
        declared.on { $0.receivedHead(status: 302, contentLength: 1 << 30, contentRange: nil, now: 0) }
        #expect(declared.log == ["stop"])
        declared.lateEventsAreIgnored()

        var chunked = Trace(maximum: 100, drain: 3072)
        chunked.on { $0.receivedHead(status: 307, contentLength: nil, contentRange: nil, now: 0) }
        chunked.on { $0.receivedPiece(count: 3072, now: 0) }
        chunked.on { $0.receivedPiece(count: 1, now: 0) }
        #expect(chunked.log == ["collect", "drop", "stop"])
        #expect(chunked.endings == 1)
        chunked.lateEventsAreIgnored()
    }

    @Test func aFollowedRedirectsBodyStillMeetsTheDeadlineAndFailures() {
        var late = Trace(maximum: 100, deadline: 10 * Self.ms, limit: 1, drain: 3072)
        late.on { $0.receivedHead(status: 302, contentLength: nil, contentRange: nil, now: 0) }
        late.on { $0.receivedPiece(count: 10, now: 20 * Self.ms) }
        #expect(late.log == ["collect", "fail(deadline(1.0))"])

        var lost = Trace(maximum: 100, drain: 3072)
        lost.on { $0.receivedHead(status: 302, contentLength: 1000, contentRange: nil, now: 0) }
        lost.on { $0.receivedPiece(count: 10, now: 0) }
        lost.on { $0.failed(.transport(underlying: URLError(.networkConnectionLost))) }
        #expect(lost.log == ["collect", "drop", "fail(transport)"])
    }

    /// 2,000 seeded random orders of head, pieces, end and failures against every target: exactly one terminal
    /// action once the body ends or fails, nothing but `none` after it, and never more than the limit kept.
    @Test func anyEventOrderEndsExactlyOnce() {
        var state: UInt64 = 16
        func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        let targets: [ResponseStateMachine.Target] = [.memory, .file, .append(offset: 10)]
        for seed in 0..<2_000 {
            var trace = Trace(maximum: 100, target: targets[next(3)], deadline: 500 * Self.ms, limit: 1)
            var now: UInt64 = 0
            var kept = 0
            for _ in 0..<next(12) {
                now += UInt64(next(100)) * Self.ms
                switch next(6) {
                case 0:
                    let status = [200, 206, 404][next(3)]
                    let length = next(3) == 0 ? nil : Int64(next(200))
                    let range = "bytes \(next(2) * 10)-99/100"
                    trace.on { $0.receivedHead(status: status, contentLength: length, contentRange: range, now: now) }
                case 1, 2, 3:
                    let count = next(80)
                    if trace.on({ $0.receivedPiece(count: count, now: now) }).hasPrefix("keep(") { kept += count }
                case 4: trace.on { $0.bodyEnded(now: now) }
                default: trace.on { $0.failed(.transport(underlying: URLError(.networkConnectionLost))) }
                }
            }
            // The stream always ends or throws in the end.
            trace.on { $0.failed(.cancelled) }
            #expect(trace.endings == 1, "seed \(seed): \(trace.log)")
            #expect(kept <= 100, "seed \(seed): \(trace.log)")
            if let end = trace.log.firstIndex(where: { $0.hasPrefix("finish(") || $0.hasPrefix("fail(") }) {
                #expect(trace.log[(end + 1)...].allSatisfy { $0 == "none" }, "seed \(seed): \(trace.log)")
            }
        }
    }
}
