import CRUDKitCore
import Dispatch

extension Future {
    /// Creates a future that runs `work` in a new `Task` and completes with its outcome.
    ///
    /// Cancelling the future cancels that task. Work that ends by throwing `CancellationError` (or URLSession's
    /// cancellation error) fails the future with ``CRUDError/cancelled``.
    ///
    /// ```swift
    /// let person = Future { try await Person.read(id: 12) }
    /// ```
    /// - Parameters:
    ///   - callbackQueue: Where callbacks run when no queue is given per call; `nil` means
    ///     `Future.defaultCallbackQueue`.
    ///   - priority: The task's priority.
    ///   - work: The async work that produces the value.
    public convenience init(
        callbackQueue: DispatchQueue? = nil,
        priority: TaskPriority? = nil,
        _ work: @escaping @Sendable () async throws -> Value
    ) {
        self.init(callbackQueue: callbackQueue)
        let task = Task(priority: priority) {
            do {
                self.complete(with: .success(try await work()))
            } catch {
                self.complete(with: .failure(Future.normalized(error)))
            }
        }
        addCancelHandler { task.cancel() }
    }

    /// The value, once the future completes; throws its error.
    ///
    /// Cancelling the awaiting `Task` ends this wait at once with ``CRUDError/cancelled`` (unless the future
    /// completed first) and withdraws this wait's interest in the future, as a cancelled derived future does (see
    /// ``cancel()``): the future itself is cancelled only when nothing else observes it — no callback, no other
    /// `await`, no derived future. A future shared by two tasks keeps going for the one still waiting.
    ///
    /// ```swift
    /// let person = try await Person.read(id: 12).value
    /// ```
    /// - Throws: The error the future failed with.
    @inlinable
    public var value: Value {
        get async throws {
            try await result.get()
        }
    }

    /// The outcome, once the future completes.
    ///
    /// Cancelling the awaiting `Task` ends this wait with a ``CRUDError/cancelled`` failure and withdraws its
    /// interest; the future is cancelled only when no other observer is left (see ``value``).
    @inlinable
    public var result: Result<Value, any Error> {
        get async {
            if let result = completedResult { return result }
            return await awaitResult()
        }
    }

    /// Waits for the outcome as one observer that a cancelled task withdraws.
    @usableFromInline
    func awaitResult() async -> Outcome {
        let waiter = Waiter()
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                waiter.start(continuation)
                // Observed even by a task cancelled already, so that its interest is counted and withdrawn like
                // any other: the future is cancelled when no one else observes it.
                observe(key: waiter.key) { waiter.finish(with: $0) }
                if waiter.registered() { withdrawInterest(of: waiter.key) }
            }
        } onCancel: {
            // The wait's observer leaves the future at once: a cancelled `await` holds nothing until it completes.
            if waiter.cancel() { withdrawInterest(of: waiter.key) }
        }
    }

    /// One `await` of the future: resumes its continuation exactly once, with the outcome or, when its task is
    /// cancelled first, with ``CRUDError/cancelled``; says when the wait's interest must be withdrawn (once, and
    /// only after it was registered). Its state sits behind its one lock; copies share it.
    ///
    /// The lock's exactly-once bookkeeping is what makes the unchecked continuation safe: each path takes the
    /// continuation out under the lock before resuming it, so it is resumed exactly once. One allocation (the
    /// lock's storage) and no checked-continuation canary.
    @usableFromInline
    struct Waiter: Sendable {
        struct State {
            var continuation: UnsafeContinuation<Outcome, Never>?
            var isCancelled = false
            var isRegistered = false
            var isDone = false
        }

        let state = Locked(State())

        @usableFromInline init() {}

        /// The key of this wait's observer on the future: the identity of its lock's storage.
        var key: ObserverKey { ObserverKey(owner: state.storage) }

        /// Keeps `continuation`, or resumes it with the cancellation when the task was cancelled already.
        func start(_ continuation: UnsafeContinuation<Outcome, Never>) {
            let cancelled = state.withLock { state -> Bool in
                if state.isCancelled {
                    state.isDone = true
                    return true
                }
                state.continuation = continuation
                return false
            }
            if cancelled { continuation.resume(returning: .failure(CRUDError.cancelled)) }
        }

        /// Notes that the wait's observer (and its interest) is registered; `true` when the task was cancelled
        /// meanwhile, so the caller withdraws the interest now.
        func registered() -> Bool {
            state.withLock { state in
                state.isRegistered = true
                return state.isCancelled
            }
        }

        /// Resumes the wait with `outcome`, unless cancellation resumed it first.
        func finish(with outcome: Outcome) {
            let continuation = state.withLock { state -> UnsafeContinuation<Outcome, Never>? in
                state.isDone = true
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume(returning: outcome)
        }

        /// Resumes the wait with ``CRUDError/cancelled`` unless it is over; `true` when the interest is
        /// registered and must be withdrawn now (else ``registered()`` says so later).
        func cancel() -> Bool {
            let (continuation, withdraw) = state.withLock {
                state -> (UnsafeContinuation<Outcome, Never>?, Bool) in
                guard !state.isCancelled else { return (nil, false) }
                state.isCancelled = true
                let taken = state.isDone ? nil : state.continuation
                state.continuation = nil
                if taken != nil { state.isDone = true }
                return (taken, state.isRegistered)
            }
            continuation?.resume(returning: .failure(CRUDError.cancelled))
            return withdraw
        }
    }
}
