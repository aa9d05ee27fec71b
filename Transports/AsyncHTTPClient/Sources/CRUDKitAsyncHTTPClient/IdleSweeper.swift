import NIOConcurrencyHelpers
import NIOCore

/// The one timer behind every ``IdleWatchdog`` of a transport: a sweep, on one event loop, due when the earliest
/// watched exchange could first have been quiet for its idle time.
///
/// Watching and releasing an exchange only takes a lock: with exchanges of one idle time (the usual case) an exchange
/// that starts is never due before the armed sweep, so nothing is scheduled or cancelled per request (a NIO timer
/// scheduled or cancelled from outside its loop wakes that loop each time). A sweep checks every watched exchange,
/// ends those quiet for their idle time and arms the next sweep for the earliest of the others.
final class IdleSweeper: Sendable {
    private struct State {
        /// The exchanges under watch.
        var watched: [ObjectIdentifier: IdleWatchdog] = [:]
        /// When the armed sweep is due (uptime nanoseconds), if one is armed.
        var due: UInt64?
        /// The armed sweep's timer, once scheduled.
        var timer: Scheduled<Void>?
    }

    /// Where the sweeps run; also the event loop that few answers collected at once prefer (see
    /// `AsyncHTTPClientTransport.sameLoopLimit`).
    let eventLoop: any EventLoop
    private let state = NIOLockedValueBox(State())

    /// Creates a sweeper whose timer runs on `eventLoop`.
    ///
    /// - Parameter eventLoop: Where the sweeps run.
    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Watches `watchdog`, which is first due at `due` (uptime nanoseconds).
    func watch(_ watchdog: IdleWatchdog, due: UInt64) {
        ensureSweep(by: due) { $0.watched[ObjectIdentifier(watchdog)] = watchdog }
    }

    /// Stops watching `watchdog` (its exchange ended); the armed sweep stays, and finds less to do.
    func release(_ watchdog: IdleWatchdog) {
        state.withLockedValue { state in
            let key = ObjectIdentifier(watchdog)
            if state.watched[key] === watchdog { state.watched[key] = nil }
        }
    }

    /// Makes sure a sweep comes by `due`, after `change` to the state (under the same lock).
    private func ensureSweep(by due: UInt64, _ change: (inout State) -> Void = { _ in }) {
        let (needed, previous) = state.withLockedValue { state -> (Bool, Scheduled<Void>?) in
            change(&state)
            if let armed = state.due, armed <= due { return (false, nil) }
            state.due = due
            defer { state.timer = nil }
            return (true, state.timer)
        }
        guard needed else { return }
        previous?.cancel()
        let timer = eventLoop.scheduleTask(deadline: .uptimeNanoseconds(due)) { [weak self] () -> Void in
            self?.sweep(armedFor: due)
        }
        // Another sweep was armed earlier meanwhile (or this one already ran): this timer is not the armed one.
        let stale = state.withLockedValue { state -> Bool in
            guard state.due == due, state.timer == nil else { return true }
            state.timer = timer
            return false
        }
        if stale { timer.cancel() }
    }

    /// The sweep armed for `due`: ends every exchange quiet for its idle time, arms the next for the others.
    private func sweep(armedFor due: UInt64) {
        let watched = state.withLockedValue { state -> [IdleWatchdog]? in
            // A sweep armed later for an earlier time replaced this one.
            guard state.due == due else { return nil }
            state.due = nil
            state.timer = nil
            return Array(state.watched.values)
        }
        guard let watched else { return }
        let now = NIODeadline.now().uptimeNanoseconds
        var next: UInt64?
        var ended: [IdleWatchdog] = []
        for watchdog in watched {
            if let due = watchdog.check(now: now) {
                next = min(next ?? due, due)
            } else {
                ended.append(watchdog)
            }
        }
        // `watched` keeps every checked watchdog alive, so no key below can belong to a newer one.
        state.withLockedValue { state in
            for watchdog in ended {
                let key = ObjectIdentifier(watchdog)
                if state.watched[key] === watchdog { state.watched[key] = nil }
            }
        }
        if let next { ensureSweep(by: next) }
    }
}
