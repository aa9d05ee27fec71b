import Dispatch

extension Future {
    /// Registers `callback` to run with the outcome once the future completes.
    ///
    /// Each callback runs exactly once, also when registered after completion. Callbacks run on `queue`;
    /// without one, on the queue the future was made with (``Promise/init(callbackQueue:)``, inherited by
    /// derived futures), and otherwise on `Future.defaultCallbackQueue`. Callbacks that run on the same serial
    /// queue run in the order they were registered.
    ///
    /// ```swift
    /// Person.read(id: 12)
    ///     .onSuccess { person in print(person.firstName) }
    ///     .onFailure { error in print(error) }
    ///     .onComplete(on: .main) { _ in spinner.stop() }
    /// ```
    /// - Parameters:
    ///   - queue: Where the callback runs; `nil` for the future's queue.
    ///   - callback: Receives the value or the error.
    /// - Returns: This future, to chain more callbacks.
    @inlinable @discardableResult
    public func onComplete(
        on queue: DispatchQueue? = nil,
        _ callback: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> Future<Value> {
        add(Observer(queue: resolvedQueue(queue), callback: callback))
        return self
    }

    /// Registers `callback` to run with the value if the future succeeds.
    ///
    /// Runs where ``onComplete(on:_:)`` would.
    /// - Parameters:
    ///   - queue: Where the callback runs; `nil` for the future's queue.
    ///   - callback: Receives the value.
    /// - Returns: This future, to chain more callbacks.
    @inlinable @discardableResult
    public func onSuccess(
        on queue: DispatchQueue? = nil,
        _ callback: @escaping @Sendable (Value) -> Void
    ) -> Future<Value> {
        onComplete(on: queue) { result in
            if case .success(let value) = result { callback(value) }
        }
    }

    /// Registers `callback` to run with the error if the future fails (also when it is cancelled).
    ///
    /// Runs where ``onComplete(on:_:)`` would.
    /// - Parameters:
    ///   - queue: Where the callback runs; `nil` for the future's queue.
    ///   - callback: Receives the error.
    /// - Returns: This future, to chain more callbacks.
    @inlinable @discardableResult
    public func onFailure(
        on queue: DispatchQueue? = nil,
        _ callback: @escaping @Sendable (any Error) -> Void
    ) -> Future<Value> {
        onComplete(on: queue) { result in
            if case .failure(let error) = result { callback(error) }
        }
    }

    /// Registers `callback` to run with the outcome on the thread that completes the future, with no queue
    /// hop; if the future has already completed, it runs at once on the caller's thread.
    ///
    /// This is the cheapest way to observe a future, for short work that does not block and does not care
    /// which thread it runs on (counting, signalling a semaphore, resuming a continuation). Anything else
    /// belongs in ``onComplete(on:_:)``.
    /// - Parameter callback: Receives the value or the error.
    /// - Returns: This future, to chain more callbacks.
    @inlinable @discardableResult
    public func onCompleteInline(_ callback: @escaping @Sendable (Result<Value, any Error>) -> Void) -> Future<Value> {
        observe(callback)
        return self
    }
}
