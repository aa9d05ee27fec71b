import Dispatch

/// The producing side of a ``Future``: whoever makes the value completes the promise, and hands out its
/// ``future``.
///
/// ```swift
/// func slowAnswer() -> Future<Int> {
///     let promise = Promise<Int>()
///     DispatchQueue.global().async { promise.succeed(42) }
///     return promise.future
/// }
/// ```
///
/// The first completion wins; later ones are ignored and return `false`, so several producers may race to
/// complete one promise from different threads. A promise that is never completed keeps its future (and
/// every future derived from it) pending.
public struct Promise<Value: Sendable>: Sendable {
    /// The future this promise completes.
    public let future: Future<Value>

    /// Creates a pending promise.
    /// - Parameter callbackQueue: Where the future's callbacks run when no queue is given per call, inherited
    ///   by the futures derived from it; `nil` means `Future.defaultCallbackQueue`.
    @inlinable
    public init(callbackQueue: DispatchQueue? = nil) {
        future = Future(callbackQueue: callbackQueue)
    }

    /// Completes the future with `value`.
    /// - Returns: Whether this call completed the future (`false` if it had already completed).
    @inlinable @discardableResult
    public func succeed(_ value: Value) -> Bool {
        future.complete(with: .success(value))
    }

    /// Completes the future with `error`.
    /// - Returns: Whether this call completed the future (`false` if it had already completed).
    @inlinable @discardableResult
    public func fail(_ error: any Error) -> Bool {
        future.complete(with: .failure(error))
    }

    /// Completes the future with `result`.
    /// - Returns: Whether this call completed the future (`false` if it had already completed).
    @inlinable @discardableResult
    public func complete(with result: Result<Value, any Error>) -> Bool {
        future.complete(with: result)
    }

    /// Registers `handler` to run when the future is cancelled before it completes: stop the work there.
    ///
    /// The handler runs on the thread that cancels, before callbacks are handed ``CRUDError/cancelled``. It runs
    /// at once if the future has already been cancelled, and never if the future completes otherwise.
    ///
    /// ```swift
    /// let promise = Promise<Data>()
    /// let task = session.dataTask(with: url) { data, _, error in … }
    /// promise.onCancel { task.cancel() }
    /// ```
    @inlinable
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        future.addCancelHandler(handler)
    }

    /// Whether the future has been cancelled: long work may check it between steps.
    @inlinable
    public var isCancelled: Bool { future.isCancelled }
}
