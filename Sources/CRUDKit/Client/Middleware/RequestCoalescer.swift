import Foundation

/// Lets identical reads that are in flight at the same moment share one exchange with the server.
///
/// Every ``API`` keeps one, through which its ``CoalescingMiddleware`` shares reads just before the transport. A caller asks for the response to a request;
/// when an identical request (same ``Key``) is already in flight, it waits for that one instead of sending its own,
/// and every caller gets the same ``HTTPResponse`` (or the same error) to decode on its own.
///
/// Cancellation and deadlines are per caller: a caller that is cancelled stops waiting at once with
/// ``CRUDError/cancelled``, and one whose deadline passes with ``CRUDError/Timeout/deadline(_:)``, while the others
/// keep waiting; a caller who joins late is not held to the first caller's deadline. A caller's deadline holds even
/// when its timer is late (a busy thread pool): an answer that arrives after it is that caller's timeout, never its
/// response, as the shared exchange, sent without a deadline, may have followed redirects past it. The shared
/// exchange is cancelled only when every caller waiting for it has left. An exchange leaves the table the moment it completes (or its last caller leaves), so a request made
/// afterwards is sent afresh, and nothing is kept once nothing is in flight.
package final class RequestCoalescer: Sendable {
    /// What makes two requests identical: the method (`GET` or `HEAD`), the URL as sent,
    /// every header field (names compared ignoring case, fields in any order, repeated fields in order), and the
    /// idle timeout.
    ///
    /// Every header takes part, so a response is never shared between requests that differ in `Authorization`,
    /// `Cookie`, `Accept`, `Accept-Language` or anything else a server may look at. The deadline does not: the shared
    /// exchange is sent without one, and each caller waits with its own, so a caller with no deadline (or another
    /// one) joins an exchange in flight. The timeout is compared by its bits, so that a NaN timeout matches itself
    /// (a key unequal to itself would never be shared, nor ever be taken out of the table).
    package struct Key: Hashable, Sendable {
        let method: HTTPMethod
        let url: String
        let headers: [String]
        let timeout: UInt64?

        /// The key of `request`, or `nil` when it may not share an exchange: a method other than `GET` or `HEAD`,
        /// or a body.
        /// - Parameters:
        ///   - request: The read.
        ///   - ignoring: Lower-cased names of header fields left out of the key (a trace's context).
        package init?(_ request: HTTPRequest, ignoring: Set<String> = []) {
            guard request.method == .get || request.method == .head, request.body.isEmpty else { return nil }
            method = request.method
            url = request.url.absoluteString
            var fields = request.headers.fields.map { ($0.name.lowercased(), $0.value) }
            if !ignoring.isEmpty { fields.removeAll { ignoring.contains($0.0) } }
            if fields.count > 1 {
                // A stable sort by name keeps the order of repeated fields, which may matter.
                fields = fields.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }
                    .map(\.element)
            }
            headers = fields.map { $0.0 + ":" + $0.1 }
            timeout = request.timeout.map { $0.isNaN ? Double.nan.bitPattern : $0.bitPattern }
        }
    }

    /// One exchange in flight and the callers waiting for it.
    private struct Flight {
        let key: Key
        var task: Task<Void, Never>?
        var waiters: [Int: Waiter] = [:]
    }

    /// A caller waiting for a flight: where its answer goes, and its deadline, if it has one.
    private struct Waiter {
        let continuation: CheckedContinuation<HTTPResponse, any Error>
        /// When the caller's deadline passes, and its figure in seconds (for the error); `nil` for none.
        let deadline: (due: ContinuousClock.Instant, seconds: TimeInterval)?
    }

    /// Where one caller is: numbered but not yet waiting, waiting for an exchange, or gone before it could wait.
    private enum Caller {
        /// Numbered; its continuation is not registered yet.
        case arriving
        /// Waiting for the exchange of this number.
        case waiting(Int)
        /// Left (cancelled, or its deadline passed) before it was waiting; it ends with this error on arrival.
        case left(CRUDError)
    }

    private struct State {
        /// Every exchange in flight, by its number.
        var flights: [Int: Flight] = [:]
        /// The exchange a new caller of each key joins (an exchange may be detached from its key, see ``detach``).
        var joinable: [Key: Int] = [:]
        /// Each caller not yet answered.
        var callers: [Int: Caller] = [:]
        var nextNumber = 0
    }

    /// The lock guarding every exchange in flight and its waiters.
    private let state = Locked(State())
    /// The clock deadlines are read on (a test's, to pass a deadline without waiting for it).
    private let now: @Sendable () -> ContinuousClock.Instant

    /// Creates an empty coalescer.
    /// - Parameter now: The current time; the continuous clock's unless a test moves it.
    package init(now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.now = now
    }

    /// The response to the request `key` stands for: from the exchange in flight for `key` if there is one,
    /// otherwise from `operation`, run once for every caller that asks before it completes.
    ///
    /// Each caller waits on its own terms: its task's cancellation ends its wait with ``CRUDError/cancelled``, and
    /// its `deadline` (in seconds, counted from this call) with ``CRUDError/Timeout/deadline(_:)``, whatever the
    /// other callers' are. The exchange runs as long as one caller still waits for it (so `operation` should carry
    /// no deadline of its own) and is cancelled when the last one leaves.
    ///
    /// `operation` runs in a task of its own (inheriting the caller's task-local values and priority, not its
    /// cancellation), started immediately on the first caller's thread: up to its first suspension it costs no
    /// thread hop.
    /// - Throws: What `operation` threw, to every caller that waited for it; ``CRUDError/cancelled`` to a caller
    ///   that was cancelled while waiting; ``CRUDError/Timeout/deadline(_:)`` to a caller whose deadline passed.
    package func response(
        for key: Key,
        deadline: TimeInterval? = nil,
        operation: @escaping @Sendable () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let waiter = state.withLock { state -> Int in
            state.nextNumber += 1
            state.callers[state.nextNumber] = .arriving
            return state.nextNumber
        }
        // This caller's own deadline: when it passes, this caller leaves (the exchange goes on for the others). The
        // timer may run late; an answer that comes after the deadline is a timeout all the same (see `finish`).
        let limit = deadline.flatMap { seconds in Self.nanoseconds(seconds).map { (seconds, $0) } }
        let due = limit.map { (due: now() + .nanoseconds(Int64($0.1)), seconds: $0.0) }
        let timer = limit.map { seconds, nanoseconds in
            Task { [self] in
                try? await Task.sleep(nanoseconds: nanoseconds)
                if !Task.isCancelled { leave(waiter, with: .timedOut(.deadline(seconds))) }
            }
        }
        defer { timer?.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let joined = state.withLock { state -> Result<Int?, CRUDError> in
                    // Checked under the lock: a caller that left before it got here ends at once.
                    if case .left(let error) = state.callers[waiter] {
                        state.callers[waiter] = nil
                        return .failure(error)
                    }
                    if Task.isCancelled {
                        state.callers[waiter] = nil
                        return .failure(.cancelled)
                    }
                    let entry = Waiter(continuation: continuation, deadline: due)
                    if let number = state.joinable[key] {
                        state.flights[number]?.waiters[waiter] = entry
                        state.callers[waiter] = .waiting(number)
                        return .success(nil)
                    }
                    state.nextNumber += 1
                    let number = state.nextNumber
                    var flight = Flight(key: key)
                    flight.waiters[waiter] = entry
                    state.flights[number] = flight
                    state.joinable[key] = number
                    state.callers[waiter] = .waiting(number)
                    return .success(number)
                }
                switch joined {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(.none): break
                case .success(.some(let number)): start(number, operation: operation)
                }
            }
        } onCancel: {
            leave(waiter, with: .cancelled)
        }
    }

    /// `seconds` as whole nanoseconds for a timer; `nil` for no limit (infinite or NaN, as the transports and the
    /// redirect stage read a deadline that is not finite, or beyond a century); zero and negative give zero.
    private static func nanoseconds(_ seconds: TimeInterval) -> UInt64? {
        guard seconds.isFinite else { return nil }
        if seconds <= 0 { return 0 }
        guard seconds < 3_155_760_000 else { return nil }
        return UInt64(seconds * 1e9)
    }

    /// Runs the exchange of flight `number` in a task of its own, started at once on the calling thread (so an
    /// exchange that completes without suspending costs no thread hop), outside the lock.
    private func start(_ number: Int, operation: @escaping @Sendable () async throws -> HTTPResponse) {
        let run: @Sendable () async -> Void = { [self] in
            let result: Result<HTTPResponse, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            finish(number, with: result)
        }
        let task: Task<Void, Never>
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            task = Task.immediate(operation: run)
        } else {
            task = Task(operation: run)  // before Swift 6.2's runtime: started on the global executor, one hop
        }
        let abandoned = state.withLock { state -> Bool in
            guard state.flights[number] != nil else { return true }
            state.flights[number]?.task = task
            return false
        }
        // Gone already: finished (cancelling does nothing) or left by every caller before the task was kept.
        if abandoned { task.cancel() }
    }

    /// Stops new callers from joining the exchanges in flight whose key `matches` (after a write to their URL, say):
    /// the callers already waiting still get their answer; later callers start a new exchange.
    package func detach(where matches: (Key) -> Bool) {
        state.withLock { state in
            state.joinable = state.joinable.filter { !matches($0.key) }
        }
    }

    /// How many exchanges are in flight.
    package var flightCount: Int { state.withLock { $0.flights.count } }

    /// How many callers are waiting for an exchange.
    package var waitingCallers: Int {
        state.withLock { state in
            state.callers.values.count { if case .waiting = $0 { return true } else { return false } }
        }
    }

    /// Hands `result` to every caller of exchange `number` whose deadline has not passed (a caller whose deadline
    /// passed, its timer not having run yet, gets ``CRUDError/Timeout/deadline(_:)``), and forgets the exchange.
    private func finish(_ number: Int, with result: Result<HTTPResponse, any Error>) {
        let waiters = state.withLock { state -> [Waiter] in
            guard let flight = state.flights.removeValue(forKey: number) else { return [] }
            if state.joinable[flight.key] == number { state.joinable[flight.key] = nil }
            for waiter in flight.waiters.keys { state.callers[waiter] = nil }
            return Array(flight.waiters.values)
        }
        guard !waiters.isEmpty else { return }
        let arrived = waiters.contains { $0.deadline != nil } ? now() : nil
        for waiter in waiters {
            if let deadline = waiter.deadline, let arrived, arrived >= deadline.due {
                waiter.continuation.resume(throwing: CRUDError.timedOut(.deadline(deadline.seconds)))
            } else {
                waiter.continuation.resume(with: result)
            }
        }
    }

    /// Lets a caller go with `error` (it was cancelled, or its deadline passed); cancels the exchange when it was
    /// the last one waiting for it. A caller not yet waiting ends with `error` when it gets there.
    private func leave(_ waiter: Int, with error: CRUDError) {
        let (continuation, task) = state.withLock {
            state -> (CheckedContinuation<HTTPResponse, any Error>?, Task<Void, Never>?) in
            switch state.callers[waiter] {
            case .arriving:
                state.callers[waiter] = .left(error)
                return (nil, nil)
            case .left, .none:
                return (nil, nil)
            case .waiting(let number):
                state.callers[waiter] = nil
                guard let continuation = state.flights[number]?.waiters.removeValue(forKey: waiter)?.continuation else {
                    return (nil, nil)
                }
                guard let flight = state.flights[number], flight.waiters.isEmpty else { return (continuation, nil) }
                state.flights[number] = nil
                if state.joinable[flight.key] == number { state.joinable[flight.key] = nil }
                return (continuation, flight.task)
            }
        }
        continuation?.resume(throwing: error)
        task?.cancel()
    }
}
