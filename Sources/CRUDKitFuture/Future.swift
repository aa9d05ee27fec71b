import CRUDKitCore
import Dispatch

/// A value that arrives later, or the error that prevented it: the result of every CRUDKit call.
///
/// A future completes exactly once, with a value or an error; the first completion wins and later ones are
/// ignored, safely from any thread. Make one with a ``Promise``, with ``init(value:callbackQueue:)`` or
/// ``init(error:callbackQueue:)`` when the outcome is already known, or with
/// ``init(callbackQueue:priority:_:)`` to run `async` work.
///
/// Observe it with callbacks, which run on a queue (see ``onComplete(on:_:)``), transform it with combinators
/// such as ``map(_:)`` and ``flatMap(_:)``, or `await` it with ``value``:
///
/// ```swift
/// Person.read(id: 12)
///     .map { $0.firstName }
///     .onSuccess { name in print(name) }
///     .onFailure { error in print(error) }
///
/// let name = try await Person.read(id: 12).map { $0.firstName }.value
/// ```
///
/// ``cancel()`` completes a pending future with ``CRUDError/cancelled`` and stops the work behind it.
///
/// A future is safe to share between threads; all of its state sits behind one lock.
public final class Future<Value: Sendable>: Sendable {
    /// A completed future's outcome.
    @usableFromInline typealias Outcome = Result<Value, any Error>

    /// The queue callbacks use when none is given per call; `nil` falls back to the program-wide default.
    @usableFromInline let callbackQueue: DispatchQueue?

    /// Everything that changes, behind the future's one lock.
    @usableFromInline package let state: Locked<State>

    /// Creates a pending future; only a ``Promise`` or a combinator completes it.
    @inlinable
    init(callbackQueue: DispatchQueue?) {
        self.callbackQueue = callbackQueue
        self.state = Locked(State())
    }

    /// Creates a pending future derived from `upstream`: cancelling it withdraws its interest from `upstream`.
    ///
    /// The upstream is kept in the state rather than in a cancellation closure, so a derived future costs no
    /// closure and no extra lock; it is released when the future completes.
    @inlinable
    init(callbackQueue: DispatchQueue?, upstream: any FutureInterest) {
        self.callbackQueue = callbackQueue
        var state = State()
        state.upstream = upstream
        self.state = Locked(state)
    }

    /// Creates a future that has already completed with `result`.
    /// - Parameters:
    ///   - result: The outcome.
    ///   - callbackQueue: Where callbacks run when no queue is given per call; `nil` means
    ///     `Future.defaultCallbackQueue`.
    @inlinable
    public init(result: Result<Value, any Error>, callbackQueue: DispatchQueue? = nil) {
        self.callbackQueue = callbackQueue
        var state = State()
        state.result = result
        self.state = Locked(state)
    }

    /// Creates a future that has already succeeded with `value`.
    /// - Parameters:
    ///   - value: The value.
    ///   - callbackQueue: Where callbacks run when no queue is given per call; `nil` means
    ///     `Future.defaultCallbackQueue`.
    @inlinable
    public convenience init(value: Value, callbackQueue: DispatchQueue? = nil) {
        self.init(result: .success(value), callbackQueue: callbackQueue)
    }

    /// Creates a future that has already failed with `error`.
    /// - Parameters:
    ///   - error: The failure.
    ///   - callbackQueue: Where callbacks run when no queue is given per call; `nil` means
    ///     `Future.defaultCallbackQueue`.
    @inlinable
    public convenience init(error: any Error, callbackQueue: DispatchQueue? = nil) {
        self.init(result: .failure(error), callbackQueue: callbackQueue)
    }

    /// Whether the future has completed, with a value or an error.
    @inlinable
    public var isCompleted: Bool {
        state.withLock { $0.result != nil }
    }

    /// The outcome if the future has completed, without waiting.
    @inlinable
    var completedResult: Outcome? {
        state.withLock { $0.result }
    }

    // MARK: - Completing

    /// Completes the future unless it has already completed; returns whether this call completed it.
    ///
    /// Cancellation handlers run only when `cancelled` is true; then every observer is handed `result`,
    /// in registration order. A completion made while this thread is already completing a future (from an
    /// observer or a cancellation handler) runs at once, nested, up to `CompletionTrampoline.maximumInlineDepth`
    /// levels; a deeper one is handed out after the outermost completion, so chains of any length complete and
    /// cancel in bounded stack. The outermost completion returns once all of them have been handed out.
    @inlinable @discardableResult
    func complete(with result: Outcome, cancelled: Bool = false) -> Bool {
        let taken:
            (
                observers: ObserverList<Observer>, handlers: SmallList<@Sendable () -> Void>,
                upstream: (any FutureInterest)?
            )? = state.withLock { state in
                guard state.result == nil else { return nil }
                state.result = result
                state.wasCancelled = cancelled
                let observers = state.observers
                let handlers = state.cancelHandlers
                let upstream = state.upstream
                state.observers = .none
                state.cancelHandlers = .none
                state.upstream = nil
                state.isDelivering = !observers.isEmpty
                return (observers, handlers, upstream)
            }
        guard let taken else { return false }
        let upstream = cancelled ? taken.upstream : nil
        let runsHandlers = cancelled && (!taken.handlers.isEmpty || upstream != nil)
        if !runsHandlers && taken.observers.isEmpty { return true }
        let handlers = runsHandlers ? taken.handlers : .none
        // At once, with no allocation, unless this thread is already that many completions deep (a long chain
        // of derived futures, or of upstream futures cancelled in turn): then after the outermost one, so the
        // stack stays bounded.
        if let trampoline = CompletionTrampoline.enter() {
            hand(result, to: taken.observers.ordered, upstream: upstream, handlers: handlers)
            trampoline.leave()
        } else {
            let observers = taken.observers.ordered
            CompletionTrampoline.enqueue {
                self.hand(result, to: observers, upstream: upstream, handlers: handlers)
            }
        }
        return true
    }

    /// Withdraws the interest in `upstream` (taking back this future's observer there) and runs the cancellation
    /// `handlers` (both only on cancellation), then hands `result` to `observers`: the work of one completion.
    @inlinable
    func hand(
        _ result: Outcome, to observers: SmallList<Observer>, upstream: (any FutureInterest)?,
        handlers: SmallList<@Sendable () -> Void>
    ) {
        upstream?.withdrawInterest(of: ObserverKey(owner: self))
        handlers.forEach { $0() }
        if !observers.isEmpty {
            deliver(observers, result)
        }
    }

    /// Hands `result` to `observers`, then to any registered while they ran, until none are left.
    ///
    /// While delivery runs, new registrations queue up behind it, so callbacks keep their registration order
    /// even when one is added from another thread during delivery.
    @inlinable
    func deliver(_ observers: SmallList<Observer>, _ result: Outcome) {
        var batch = observers
        while true {
            Observer.run(batch, with: result)
            batch = state.withLock { state in
                let next = state.observers
                state.observers = .none
                if next.isEmpty { state.isDelivering = false }
                return next.ordered
            }
            if batch.isEmpty { return }
        }
    }

    // MARK: - Observing

    /// Registers `observer` under `key` (`nil`: nobody takes it back); it runs at once (or on its queue) when
    /// the future has already completed.
    ///
    /// Whoever registers under a key takes the observer back with ``withdrawInterest(of:)`` (cancelling the future
    /// when it was the last) or ``removeObserver(_:)`` once it no longer wants the outcome, so a future holds only
    /// the observers still waiting.
    @inlinable
    func add(_ observer: Observer, key: ObserverKey? = nil) {
        let ready: Outcome? = state.withLock { state in
            if let result = state.result, !state.isDelivering { return result }
            state.observers.append(observer, key: key)
            return nil
        }
        if let ready {
            Observer.run(.one(observer), with: ready)
        }
    }

    /// Runs `body` on the completing thread, with no queue hop: the plumbing of combinators and `await`.
    @inlinable
    func observe(key: ObserverKey? = nil, _ body: @escaping @Sendable (Outcome) -> Void) {
        add(Observer(queue: nil, callback: body), key: key)
    }

    /// Takes back the observer registered under `key`, if it has not been handed the outcome yet, without
    /// cancelling the future (a combinator that no longer needs this input: the others keep running).
    @inlinable
    func removeObserver(_ key: ObserverKey) {
        state.withLock { state in
            guard state.result == nil else { return }
            _ = state.observers.remove(key)
        }
    }

    /// How many observers wait for the outcome (callbacks, `await`s, derived futures); 0 once completed.
    package var observerCount: Int {
        state.withLock { $0.observers.count }
    }

    // MARK: - State

    /// The mutable part of a future, guarded by `state`'s lock.
    @usableFromInline
    package struct State {
        /// The outcome, once completed.
        @usableFromInline var result: Outcome?
        /// Callbacks waiting for the outcome, in registration order, each removable by its key. While pending,
        /// their number is the future's interest: when the last is withdrawn, the future is cancelled.
        @usableFromInline package var observers: ObserverList<Observer> = .none
        /// The future this one was derived from: ``Future/cancel()`` withdraws its interest there (taking back the
        /// observer this future registered under its own key), before the `cancelHandlers` run; released on any
        /// completion.
        @usableFromInline var upstream: (any FutureInterest)?
        /// Run by ``Future/cancel()`` while the future is pending; dropped on any other completion.
        @usableFromInline package var cancelHandlers: SmallList<@Sendable () -> Void> = .none
        /// Whether a completing thread is still handing the outcome to observers.
        @usableFromInline var isDelivering = false
        /// Whether the completion came from ``Future/cancel()``.
        @usableFromInline var wasCancelled = false

        @inlinable init() {}
    }

    /// One registered callback and where it runs (`nil`: inline, on the completing thread).
    @usableFromInline
    package struct Observer: Sendable {
        @usableFromInline let queue: DispatchQueue?
        @usableFromInline let callback: @Sendable (Outcome) -> Void

        @inlinable
        init(queue: DispatchQueue?, callback: @escaping @Sendable (Outcome) -> Void) {
            self.queue = queue
            self.callback = callback
        }

        /// Runs `observers` in order: inline ones at once, and each run of consecutive observers that share a
        /// queue as one block on that queue, so they keep their order even on a concurrent queue.
        @inlinable
        static func run(_ observers: SmallList<Observer>, with result: Outcome) {
            switch observers {
            case .none:
                return
            case .one(let observer):
                if let queue = observer.queue {
                    queue.async { observer.callback(result) }
                } else {
                    observer.callback(result)
                }
            case .many(let all):
                var index = all.startIndex
                while index < all.endIndex {
                    guard let queue = all[index].queue else {
                        all[index].callback(result)
                        index += 1
                        continue
                    }
                    var end = index + 1
                    while end < all.endIndex, all[end].queue === queue { end += 1 }
                    let group = all[index..<end]
                    queue.async { group.forEach { $0.callback(result) } }
                    index = end
                }
            }
        }
    }
}
