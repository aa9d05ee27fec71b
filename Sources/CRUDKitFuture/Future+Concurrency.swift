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
    /// Cancelling the awaiting `Task` cancels the future (see ``cancel()``), which then throws
    /// ``CRUDError/cancelled`` unless it completed first.
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
    /// Cancelling the awaiting `Task` cancels the future (see ``cancel()``).
    @inlinable
    public var result: Result<Value, any Error> {
        get async {
            if let result = completedResult { return result }
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    observe { continuation.resume(returning: $0) }
                }
            } onCancel: {
                cancel()
            }
        }
    }
}
