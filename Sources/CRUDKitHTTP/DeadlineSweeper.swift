import CRUDKitCore
import Dispatch

/// One timer for the deadlines of every ``URLSessionTransfer`` of a ``URLSessionTransport``: a transfer is watched
/// from the start of its task until it finishes, and the timer, armed for the earliest deadline watched, ends the
/// transfers whose deadline passed and re-arms for the next one.
///
/// A timer source per transfer (created, scheduled, resumed and cancelled for every request, nearly all of which
/// end long before their deadline) cost each request a round trip through libdispatch's timer machinery. Here a
/// request that starts or ends only takes a lock; the timer is re-armed only when a deadline earlier than the armed
/// one is watched, or when it fires.
final class DeadlineSweeper: Sendable {
    private struct State {
        /// The transfers watched, with their deadlines in uptime nanoseconds.
        var watched: [ObjectIdentifier: (deadline: UInt64, transfer: URLSessionTransfer)] = [:]
        /// When the timer fires next; `nil` when it is not armed.
        var armed: UInt64?
        /// The one timer, created with the sweeper and resumed for its lifetime.
        let timer: any DispatchSourceTimer
    }

    private let state: Locked<State>

    /// The latest deadline kept, in uptime nanoseconds (2^62, about 146 years of uptime): libdispatch reads a time
    /// with the top bit set as one of another clock, already past, so a later one would fire at once, again and
    /// again. A transfer is never watched past it (its deadline is none).
    static let latest: UInt64 = 1 << 62

    init(queue: DispatchQueue = DispatchQueue(label: "CRUDKit.URLSessionTransport.deadlines")) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .distantFuture)
        state = Locked(State(timer: timer))
        timer.setEventHandler { [weak self] in self?.sweep() }
        timer.resume()
    }

    deinit {
        state.withLock { $0.timer.cancel() }
    }

    /// Ends `transfer` with its deadline error (``URLSessionTransfer/deadlineFired()``) once `deadline` (uptime
    /// nanoseconds) has passed, unless it is ``release(_:)``d first.
    func watch(_ transfer: URLSessionTransfer, until deadline: UInt64) {
        guard deadline < Self.latest else { return }
        state.withLock { state in
            state.watched[ObjectIdentifier(transfer)] = (deadline, transfer)
            if let armed = state.armed, armed <= deadline { return }
            // Scheduled under the lock, so a later deadline scheduled by another thread cannot overwrite it.
            state.armed = deadline
            state.timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline))
        }
    }

    /// Stops watching `transfer` (it finished).
    func release(_ transfer: URLSessionTransfer) {
        state.withLock { _ = $0.watched.removeValue(forKey: ObjectIdentifier(transfer)) }
    }

    /// How many transfers are watched.
    var count: Int { state.withLock { $0.watched.count } }

    /// When the timer fires next (uptime nanoseconds); `nil` when it is not armed.
    var armed: UInt64? { state.withLock { $0.armed } }

    /// The timer fired: the transfers whose deadline passed are ended (outside the lock), and the timer is armed
    /// for the earliest deadline left.
    private func sweep() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> [URLSessionTransfer] in
            var due: [(key: ObjectIdentifier, transfer: URLSessionTransfer)] = []
            var next: UInt64?
            for (key, entry) in state.watched {
                if entry.deadline <= now {
                    due.append((key, entry.transfer))
                } else {
                    next = min(next ?? entry.deadline, entry.deadline)
                }
            }
            for entry in due { state.watched[entry.key] = nil }
            state.armed = next
            state.timer.schedule(deadline: next.map { DispatchTime(uptimeNanoseconds: $0) } ?? .distantFuture)
            return due.map(\.transfer)
        }
        for transfer in due { transfer.deadlineFired() }
    }
}
