import CRUDKitCore
import Dispatch

extension Future {
    /// A future of every value, in the order of `futures`, once all succeed; it fails with the first failure.
    ///
    /// An empty array gives an array at once. The result uses the first future's callback queue. Cancelling
    /// it withdraws its interest from every input (see ``cancel()``).
    ///
    /// ```swift
    /// let people: Future<[Person]> = Future.all([Person.read(id: 1), Person.read(id: 2)])
    /// ```
    /// - Parameter futures: The futures to wait for.
    /// - Returns: A future of their values, in input order.
    public static func all(_ futures: [Future<Value>]) -> Future<[Value]> {
        guard !futures.isEmpty else { return Future<[Value]>(value: []) }
        let derived = Future<[Value]>(callbackQueue: futures[0].callbackQueue)
        let collected = Locked((values: [Value?](repeating: nil, count: futures.count), remaining: futures.count))
        for (index, future) in futures.enumerated() {
            future.observe(key: ObserverKey(owner: derived, slot: index)) { result in
                switch result {
                case .failure(let error):
                    if derived.complete(with: .failure(error)) { release(futures, from: derived) }
                case .success(let value):
                    let values: [Value]? = collected.withLock { collected in
                        collected.values[index] = value
                        collected.remaining -= 1
                        return collected.remaining == 0 ? collected.values.compactMap { $0 } : nil
                    }
                    if let values { derived.complete(with: .success(values)) }
                }
            }
        }
        settle(futures, derived)
        return derived
    }

    /// A future that completes as the first of `futures` to complete does, with its value or its error.
    ///
    /// The others keep running. An empty array fails with ``CRUDError/invalidRequest(reason:)``. Cancelling the
    /// result withdraws its interest from every input (see ``cancel()``).
    ///
    /// ```swift
    /// let fastest = Future.firstCompleted(of: [mirrorA.read(id: 1), mirrorB.read(id: 1)])
    /// ```
    /// - Parameter futures: The competing futures.
    /// - Returns: A future with the first outcome.
    public static func firstCompleted(of futures: [Future<Value>]) -> Future<Value> {
        guard !futures.isEmpty else {
            return Future(error: CRUDError.invalidRequest(reason: "Future.firstCompleted(of:) needs a future"))
        }
        let derived = Future<Value>(callbackQueue: futures[0].callbackQueue)
        for (index, future) in futures.enumerated() {
            future.observe(key: ObserverKey(owner: derived, slot: index)) { result in
                // The winner: the others keep running, but no longer hold an observer for this race.
                if derived.complete(with: result) { release(futures, from: derived) }
            }
        }
        settle(futures, derived)
        return derived
    }

    /// Finishes the wiring of a combinator `derived` that observes each of `futures` under the key
    /// `(derived, index)`: cancelling it withdraws its interest from each; if it completed while it was still
    /// registering, the inputs registered after that are released.
    private static func settle<Derived>(_ futures: [Future<Value>], _ derived: Future<Derived>) {
        if derived.isCompleted { release(futures, from: derived) }
        derived.addCancelHandler {
            for (index, future) in futures.enumerated() {
                future.withdrawInterest(of: ObserverKey(owner: derived, slot: index))
            }
        }
    }

    /// Takes back the observers `derived` registered on `futures`, without cancelling them: it has its outcome.
    private static func release<Derived>(_ futures: [Future<Value>], from derived: Future<Derived>) {
        for (index, future) in futures.enumerated() {
            future.removeObserver(ObserverKey(owner: derived, slot: index))
        }
    }
}
