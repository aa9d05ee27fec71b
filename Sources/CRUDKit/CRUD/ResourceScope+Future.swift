import Foundation

extension ResourceScope {
    /// Runs `work` as a ``Future`` whose callbacks run on the API's callback queue; cancelling the future cancels
    /// the work (and its request).
    ///
    /// Every `Future` overload of a model operation is this wrapped around its `async` twin's implementation
    /// (never around the public `async` overload itself, so that overload resolution inside the closure cannot
    /// pick the `Future` overload again).
    func future<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) -> Future<Value> {
        Future(callbackQueue: api.configuration.callbackQueue, work)
    }
}
