import NIOConcurrencyHelpers
import NIOCore

/// The idle timeout of one ``AsyncHTTPClientTransport`` exchange, which every sign of life (a piece of the upload
/// handed over, the head, a piece of the body) only stamps, and optionally its deadline.
///
/// AsyncHTTPClient's own read timeout cancels and schedules a NIO timer on every part of every response; here no
/// timer belongs to the exchange at all: the transport's ``IdleSweeper`` checks it when it could first be due, and
/// either ends the request (nothing happened for the whole idle time, or the deadline passed) or looks again when
/// the time left since the last stamp has passed.
final class IdleWatchdog: Sendable {
    /// Which limit ended the request.
    enum Limit: Equatable {
        /// Nothing moved for the idle time.
        case idle
        /// The deadline passed.
        case deadline
    }

    private struct State {
        /// The last sign of life, in uptime nanoseconds.
        var last: UInt64
        /// The limit that ended the request, once the watchdog ended it.
        var fired: Limit?
        /// Whether the request ended (nothing is checked any more).
        var ended = false
        /// Ends the request (cancels the task running it); set by ``arm(end:)``.
        var end: (@Sendable () -> Void)?
    }

    /// The idle time, in nanoseconds.
    let idle: UInt64
    /// When the request must be over, in uptime nanoseconds (`.max` for never).
    let deadline: UInt64
    private let sweeper: IdleSweeper
    private let state: NIOLockedValueBox<State>

    /// Creates a watchdog for `idle` nanoseconds without a sign of life, and the `deadline`; ``arm(end:)`` starts it.
    ///
    /// - Parameters:
    ///   - idle: The idle time in nanoseconds.
    ///   - deadline: When the request must be over, in uptime nanoseconds (`.max`, the default, for never).
    ///   - sweeper: The transport's sweeper, which checks it.
    init(idle: UInt64, deadline: UInt64 = .max, sweeper: IdleSweeper) {
        self.idle = max(1, idle)
        self.deadline = deadline
        self.sweeper = sweeper
        self.state = NIOLockedValueBox(State(last: NIODeadline.now().uptimeNanoseconds))
    }

    /// The limit that ended the request, if the watchdog ended it.
    var fired: Limit? { state.withLockedValue { $0.fired } }

    /// Starts watching: `end` is called once nothing was stamped for the idle time.
    ///
    /// - Parameter end: Ends the request (cancels the task running it).
    func arm(end: @escaping @Sendable () -> Void) {
        let last = state.withLockedValue { state -> UInt64 in
            state.end = end
            return state.last
        }
        let (due, overflow) = last.addingReportingOverflow(idle)
        sweeper.watch(self, due: min(overflow ? .max : due, deadline))
    }

    /// A sign of life at `now` (uptime nanoseconds).
    func stamp(_ now: UInt64 = NIODeadline.now().uptimeNanoseconds) {
        state.withLockedValue { if now > $0.last { $0.last = now } }
    }

    /// Replaces what the watchdog calls when a limit runs out (the wait it guarded is over, a request was sent);
    /// `false` when it already ran out, and `end` was not kept.
    func retarget(_ end: @escaping @Sendable () -> Void) -> Bool {
        state.withLockedValue { state in
            guard !state.ended else { return false }
            state.end = end
            return true
        }
    }

    /// The request ended: nothing is ended any more, and the sweeper lets it go.
    func disarm() {
        state.withLockedValue { state in
            state.ended = true
            state.end = nil
        }
        sweeper.release(self)
    }

    /// The sweeper's check at `now`: ends the request when nothing happened for the idle time or the deadline
    /// passed (the limit reached first is the one it names); when it is due next (uptime nanoseconds), or nil once
    /// it ended.
    func check(now: UInt64) -> UInt64? {
        var end: (@Sendable () -> Void)?
        let due = state.withLockedValue { state -> UInt64? in
            guard !state.ended else { return nil }
            let quiet = now > state.last ? now - state.last : 0
            guard quiet < idle, now < deadline else {
                // The limit reached first names the end (with `quiet >= idle`, `last + idle <= now` cannot overflow).
                state.fired = quiet >= idle && state.last + idle <= deadline ? .idle : .deadline
                state.ended = true
                end = state.end
                state.end = nil
                return nil
            }
            let (due, dueOverflow) = now.addingReportingOverflow(idle - quiet)
            return min(dueOverflow ? .max : due, deadline)
        }
        end?()
        return due
    }
}
