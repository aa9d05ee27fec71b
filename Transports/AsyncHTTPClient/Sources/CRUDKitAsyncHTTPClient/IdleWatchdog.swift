import NIOConcurrencyHelpers
import NIOCore

/// The idle timeout of one ``AsyncHTTPClientTransport`` exchange: one timer per request, on an event loop, that
/// every sign of life (a piece of the upload handed over, the head, a piece of the body) only stamps.
///
/// AsyncHTTPClient's own read timeout cancels and schedules a NIO timer on every part of every response; here the
/// timer is armed once, and when it fires it either ends the request (nothing happened for the whole idle time) or
/// re-arms itself for the time left since the last stamp. A request that finishes in time cancels it once.
final class IdleWatchdog: Sendable {
    private struct State {
        /// The last sign of life, in uptime nanoseconds.
        var last: UInt64
        /// The armed timer, until the request ends or the watchdog fires.
        var timer: Scheduled<Void>?
        /// Whether the watchdog ended the request.
        var fired = false
        /// Whether the request ended (no timer is armed any more).
        var ended = false
        /// Ends the request (cancels the task running it); set by ``arm(end:)``.
        var end: (@Sendable () -> Void)?
    }

    /// The watchdog of the exchange the current task runs, for the code that reads the body.
    @TaskLocal static var current: IdleWatchdog?

    /// The idle time, in nanoseconds.
    private let idle: UInt64
    private let eventLoop: any EventLoop
    private let state: NIOLockedValueBox<State>

    /// Creates a watchdog for `idle` nanoseconds without a sign of life; ``arm(end:)`` starts it.
    ///
    /// - Parameters:
    ///   - idle: The idle time in nanoseconds.
    ///   - eventLoop: Where its timer runs.
    init(idle: UInt64, eventLoop: any EventLoop) {
        self.idle = max(1, idle)
        self.eventLoop = eventLoop
        self.state = NIOLockedValueBox(State(last: NIODeadline.now().uptimeNanoseconds))
    }

    /// Whether the watchdog ended the request.
    var fired: Bool { state.withLockedValue { $0.fired } }

    /// Starts the timer, which calls `end` once nothing was stamped for the idle time; the first check comes after
    /// the idle time.
    ///
    /// - Parameter end: Ends the request (cancels the task running it).
    func arm(end: @escaping @Sendable () -> Void) {
        state.withLockedValue { $0.end = end }
        schedule(in: idle)
    }

    /// A sign of life at `now` (uptime nanoseconds).
    func stamp(_ now: UInt64 = NIODeadline.now().uptimeNanoseconds) {
        state.withLockedValue { if now > $0.last { $0.last = now } }
    }

    /// The request ended: the timer is cancelled; nothing is ended any more.
    func disarm() {
        let timer = state.withLockedValue { state -> Scheduled<Void>? in
            state.ended = true
            state.end = nil
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }

    private func schedule(in nanoseconds: UInt64) {
        let delay = TimeAmount.nanoseconds(Int64(clamping: nanoseconds))
        let timer = eventLoop.scheduleTask(in: delay) { [self] in check() }
        let late = state.withLockedValue { state -> Bool in
            guard !state.ended else { return true }
            state.timer = timer
            return false
        }
        if late { timer.cancel() }
    }

    /// The timer fired: end the request when nothing happened for the idle time, else wait for the rest of it.
    private func check() {
        let now = NIODeadline.now().uptimeNanoseconds
        var end: (@Sendable () -> Void)?
        let remaining = state.withLockedValue { state -> UInt64? in
            guard !state.ended else { return nil }
            state.timer = nil
            let quiet = now > state.last ? now - state.last : 0
            guard quiet < idle else {
                state.fired = true
                state.ended = true
                end = state.end
                state.end = nil
                return nil
            }
            return idle - quiet
        }
        if let remaining { schedule(in: remaining) }
        end?()
    }
}
