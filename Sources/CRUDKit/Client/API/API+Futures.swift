import Foundation

// The `Future` overloads of the calls (`get`, `post`…, `send`, `download`) are generated from their `async` forms
// by Scripts/generate-future-twins.py into Generated/FutureTwins+APICalls.swift and FutureTwins+APISend.swift. Each
// is `future { try await self.<call>(…) }`: the `async` call in a task, callbacks on the API's `callbackQueue`, and
// cancelling the future cancels the task, and with it the request (`CRUDError.cancelled`).

extension API {
    /// Runs `work` as a ``Future`` whose callbacks run on this API's callback queue; cancelling the future cancels
    /// the work (and its request).
    func future<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) -> Future<Value> {
        Future(callbackQueue: configuration.callbackQueue, work)
    }
}
