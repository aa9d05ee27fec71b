import NIOConcurrencyHelpers
import NIOCore

/// Keeps the answers collected at once for one host within the connections the owned client may open to it, and
/// hands a request that waited the event loop of the connection that just came free.
///
/// A request AsyncHTTPClient's pool has to queue (every connection busy) is taken by whichever connection frees
/// first, on any event loop, while its delegate's loop was fixed when it was sent: every part of its answer then
/// hops from one loop to the other, waking that thread (half the answers with two loops; most of the CPU that
/// `api.get` cost beyond raw AsyncHTTPClient at 64 in flight over 32 connections). Waiting here instead, a request
/// is sent once a collected answer from the same host ended, preferring that answer's loop, where the connection it
/// used is idle again.
///
/// Every ``enter(_:)`` or ``wait(_:ticket:)`` that returns is paired with one ``leave(_:loop:)``.
final class ConnectionGate: Sendable {
    /// The continuation a waiting request is resumed through, with the loop to prefer (or failed when abandoned).
    private typealias Waiter = CheckedContinuation<(any EventLoop)?, any Error>

    /// The collected answers in flight to one host, and the requests waiting for one of them to end.
    ///
    /// `queue` keeps the waiting tickets in arrival order; an abandoned request leaves only `waiting`, in O(1), its
    /// ticket skipped when it comes up (and the queue compacted when it is mostly such tickets), so cancelling
    /// thousands of waits costs no more than making them.
    private struct Host {
        var inFlight = 0
        var queue = CircularBuffer<UInt64>()
        var waiting: [UInt64: Waiter] = [:]

        mutating func append(_ ticket: UInt64, _ waiter: Waiter) {
            queue.append(ticket)
            waiting[ticket] = waiter
        }

        /// The first request still waiting, taken out of the queue.
        mutating func next() -> Waiter? {
            while let ticket = queue.popFirst() {
                if let waiter = waiting.removeValue(forKey: ticket) { return waiter }
            }
            return nil
        }

        /// The request waiting with `ticket`, taken out.
        mutating func remove(_ ticket: UInt64) -> Waiter? {
            guard let waiter = waiting.removeValue(forKey: ticket) else { return nil }
            if queue.count > 64, queue.count > 2 * waiting.count {
                let kept = queue.filter { waiting[$0] != nil }
                queue = CircularBuffer(kept)
            }
            return waiter
        }
    }

    private struct State {
        var hosts: [String: Host] = [:]
        var nextTicket: UInt64 = 0
        /// Tickets given out whose request has not started waiting yet.
        var pending: Set<UInt64> = []
        /// Pending tickets abandoned before their request started waiting.
        var abandoned: Set<UInt64> = []
    }

    /// The most collected answers in flight to one host.
    let limit: Int
    private let state = NIOLockedValueBox(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes a place for `host` when one is free; `false` when the request must ``wait(_:ticket:)``.
    func enter(_ host: String) -> Bool {
        state.withLockedValue { state in
            guard state.hosts[host, default: Host()].inFlight < limit else { return false }
            state.hosts[host, default: Host()].inFlight += 1
            return true
        }
    }

    /// A ticket naming one wait, for ``abandon(_:of:because:)``; the request waits with it at once.
    func ticket() -> UInt64 {
        state.withLockedValue { state in
            state.nextTicket &+= 1
            state.pending.insert(state.nextTicket)
            return state.nextTicket
        }
    }

    /// Waits for a place for `host`, which an ending answer hands over: the loop to prefer is that answer's.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled while waiting, the error given to
    ///   ``abandon(_:of:because:)`` for `ticket`.
    func wait(_ host: String, ticket: UInt64) async throws -> (any EventLoop)? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let refused: (any Error)? = state.withLockedValue { state in
                    state.pending.remove(ticket)
                    if state.abandoned.remove(ticket) != nil { return CancellationError() }
                    if Task.isCancelled { return CancellationError() }
                    if state.hosts[host, default: Host()].inFlight < limit {
                        // A place came free meanwhile.
                        state.hosts[host, default: Host()].inFlight += 1
                        continuation.resume(returning: nil)
                        return nil
                    }
                    state.hosts[host, default: Host()].append(ticket, continuation)
                    return nil
                }
                if let refused { continuation.resume(throwing: refused) }
            }
        } onCancel: {
            abandon(ticket, of: host, because: CancellationError())
        }
    }

    /// Ends the wait of `ticket` for `host`, failing it with `error`; a wait that has not started yet is refused
    /// when it does, and one that already got its place is left alone.
    func abandon(_ ticket: UInt64, of host: String, because error: any Error) {
        let waiter = state.withLockedValue { state -> Waiter? in
            if state.pending.contains(ticket) {
                state.abandoned.insert(ticket)
                return nil
            }
            // In place (an optional-chained mutation of the dictionary's value): no copy of the queue.
            return state.hosts[host]?.remove(ticket)
        }
        waiter?.resume(throwing: error)
    }

    /// Fails every request waiting, and every wait about to start, with `error` (the transport is shutting down).
    func abandonAll(because error: any Error) {
        let waiters = state.withLockedValue { state -> [Waiter] in
            var waiters: [Waiter] = []
            for host in Array(state.hosts.keys) {
                while let waiter = state.hosts[host]?.next() { waiters.append(waiter) }
            }
            state.abandoned.formUnion(state.pending)
            return waiters
        }
        for waiter in waiters { waiter.resume(throwing: error) }
    }

    /// The places taken for `host` and the requests waiting for one.
    func counts(_ host: String) -> (inFlight: Int, waiting: Int) {
        state.withLockedValue { state in
            let entry = state.hosts[host]
            return (entry?.inFlight ?? 0, entry?.waiting.count ?? 0)
        }
    }

    /// Whether no place is taken, no request waits and no ticket is outstanding (nothing is kept for a host once
    /// its last answer ended).
    var isIdle: Bool {
        state.withLockedValue { $0.hosts.isEmpty && $0.pending.isEmpty && $0.abandoned.isEmpty }
    }

    /// Gives up a place for `host`: to the first waiting request, with `loop` (where the ending answer was read) to
    /// prefer, or back to the gate.
    func leave(_ host: String, loop: (any EventLoop)?) {
        let next = state.withLockedValue { state -> Waiter? in
            if let waiter = state.hosts[host]?.next() { return waiter }
            guard let inFlight = state.hosts[host]?.inFlight else { return nil }
            if inFlight > 1 {
                state.hosts[host]?.inFlight = inFlight - 1
            } else {
                state.hosts[host] = nil
            }
            return nil
        }
        next?.resume(returning: loop)
    }
}
