import Foundation

// The `Future` overloads of the model operations are generated from their `async` forms by
// Scripts/generate-future-twins.py into Generated/FutureTwins+*.swift; these are the helpers they call. A twin's
// closure calls the public `async` operation by name: it must return `Value`, and the `Future` overload returns
// `Future<Value>`, so resolution inside it cannot pick the twin itself.

extension ResourceScope {
    /// Runs `work` as a ``Future`` whose callbacks run on the API's callback queue; cancelling the future cancels
    /// the work (and its request).
    func future<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) -> Future<Value> {
        Future(callbackQueue: api.configuration.callbackQueue, work)
    }
}

extension CRUDResource {
    /// Runs `work` (a static or instance operation of this model) as a ``Future`` on this model's scope, as it is
    /// now: callbacks on its API's callback queue, and ``API/shared`` pinned to the API of the moment of the call,
    /// so the operation uses the API it started with even when the default is replaced before its task runs, in the
    /// `API.withShared(_:operation:)` block it was made in (values it reads write back there as that block's).
    static func future<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) -> Future<Value> {
        let shared = API.shared
        let block = API.sharedBlock
        return scope.future { try await API.withShared(shared, block: block, operation: work) }
    }
}
