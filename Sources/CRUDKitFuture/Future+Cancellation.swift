import CRUDKitCore

/// A future as seen by the futures derived from it: something whose interest a cancelled derived future withdraws.
@usableFromInline
protocol FutureInterest: AnyObject, Sendable {
    /// Takes back the observer registered under `key` and its interest; see ``Future/withdrawInterest(of:)``.
    func withdrawInterest(of key: ObserverKey)
    /// Takes back the observer registered under `key` without cancelling; see ``Future/removeObserver(_:)``.
    func removeObserver(_ key: ObserverKey)
}

extension Future: FutureInterest {
    /// Completes the future with ``CRUDError/cancelled`` if it is still pending, and stops the work behind it.
    ///
    /// Cancelling runs the handlers its producer registered with ``Promise/onCancel(_:)`` (the HTTP layer
    /// cancels its request there), cancels the `Task` of a future made with ``init(callbackQueue:priority:_:)``,
    /// and then hands the error to every callback. A future that has already completed is not changed.
    ///
    /// **Through chains**, cancellation travels upstream by interest: a future made by a combinator
    /// (``map(_:)``, ``flatMap(_:)``, ``mapError(_:)``, ``recover(_:)-((Error)->Value)``, ``zip(_:)``, ``all(_:)``,
    /// ``firstCompleted(of:)``) withdraws its interest from the futures it waits on when it is cancelled, and
    /// a pending future that no observer is interested in any more is cancelled in turn. So cancelling the end
    /// of `read().map(decode)` cancels the request, while a future that something else still observes (a
    /// callback, an `await`, another derived future) keeps going for that observer. A cancelled `Task` that awaits
    /// the future (``value``, ``result``) withdraws its interest the same way: its `await` throws
    /// ``CRUDError/cancelled`` at once, and the future is cancelled only when that await was its last observer.
    ///
    /// A cancelled future never runs its combinator's transform, even when the future it came from goes on for
    /// another observer and succeeds later: `shared.flatMap { _ in api.post(…) }` cancelled before `shared`
    /// completes sends nothing. Whoever withdrew takes its observer back at once (in O(1)), so a long-lived future
    /// holds only the observers still waiting, however many awaits and derived futures gave up on it.
    ///
    /// ```swift
    /// let request = Person.read(id: 12)
    /// let name = request.map { $0.firstName }
    /// name.cancel()       // `request` has no other observer: it is cancelled too
    /// ```
    @inlinable
    public func cancel() {
        complete(with: .failure(CRUDError.cancelled), cancelled: true)
    }

    /// Whether the future was completed by ``cancel()`` (directly, through a chain, or from a cancelled `Task`).
    @inlinable
    public var isCancelled: Bool {
        state.withLock { $0.wasCancelled }
    }

    /// Registers `handler` to run if the future is cancelled while pending.
    ///
    /// It runs at once if the future has already been cancelled, and never if it completed otherwise.
    @inlinable
    func addCancelHandler(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            guard state.result == nil else { return state.wasCancelled }
            state.cancelHandlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    /// Takes back the observer registered under `key` (a cancelled derived future or `await`) and with it its
    /// interest; cancels the future when that was the last observer and it is still pending.
    ///
    /// The observer is removed under the future's lock, so a caller who left costs nothing: it is not kept until
    /// the future completes, and it is not run.
    /// - Complexity: O(1) amortized.
    @inlinable
    func withdrawInterest(of key: ObserverKey) {
        let abandoned = state.withLock { state in
            guard state.result == nil, state.observers.remove(key) else { return false }
            return state.observers.isEmpty
        }
        if abandoned { cancel() }
    }

    /// The error a future fails with when its work threw `error`: the cancellation errors of Swift concurrency
    /// and of URLSession become ``CRUDError/cancelled``; every other error is kept as it is.
    ///
    /// URLSession's error is recognised in the core layer (`CRUDError.isCancellation(_:)`), by its
    /// `NSURLErrorDomain` code, so that this module imports neither Foundation nor FoundationNetworking.
    static func normalized(_ error: any Error) -> any Error {
        CRUDError.isCancellation(error) ? CRUDError.cancelled : error
    }
}
