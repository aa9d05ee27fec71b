import Dispatch
import Testing

@testable import CRUDKit

/// Cancellation belongs to one observer: a task that stops awaiting a shared future takes back only its own
/// interest, as a cancelled derived future does. The future (and the producer's work) is cancelled only when no
/// callback, no other `await` and no derived future is left.
@Suite struct FutureSharedAwaitTests {
    /// What else observes the shared future while one awaiting task is cancelled.
    struct Others: OptionSet, Sendable, CustomTestStringConvertible {
        let rawValue: Int
        static let callback = Others(rawValue: 1)
        static let derived = Others(rawValue: 2)
        static let awaiter = Others(rawValue: 4)
        static let secondAwaiter = Others(rawValue: 8)
        /// Every combination, the empty one included.
        static let combinations = (0..<16).map(Others.init(rawValue:))

        var testDescription: String {
            let names = [
                (Others.callback, "callback"), (.derived, "derived"), (.awaiter, "awaiter"),
                (.secondAwaiter, "second awaiter"),
            ]
            let present = names.filter { contains($0.0) }.map(\.1)
            return present.isEmpty ? "nothing else" : present.joined(separator: " + ")
        }
    }

    /// Starts a task awaiting `future` and waits until its await is registered (the future's interest grows).
    private static func awaiting(_ future: Future<Int>) async -> Task<Result<Int, any Error>, Never> {
        let before = future.interestForTesting
        let task = Task { await future.result }
        while future.interestForTesting == before { await Task.yield() }
        return task
    }

    /// The case, 50 times: two tasks await one future, the first is cancelled, the promise then succeeds
    /// with 42: the second gets 42 (before the fix it got `CRUDError.cancelled` every time).
    @Test func oneCancelledAwaiterDoesNotCancelTheFutureForTheOther() async {
        for _ in 0..<50 {
            let promise = Promise<Int>()
            let first = await Self.awaiting(promise.future)
            let second = await Self.awaiting(promise.future)
            first.cancel()
            #expect(isCancelled(await first.value.failure), "the cancelled task must stop waiting at once")
            #expect(!promise.isCancelled)
            promise.succeed(42)
            #expect(await second.value.success == 42)
        }
    }

    /// Every combination of other observers: with any of them the future survives the cancelled awaiter and each
    /// of them gets the value; with none, the producer's work is cancelled.
    @Test(arguments: Others.combinations)
    func theFutureIsCancelledOnlyWhenNoObserverIsLeft(others: Others) async {
        let promise = Promise<Int>()
        let producerCancelled = Recorder<Int>()
        promise.onCancel { producerCancelled.record(1) }
        let future = promise.future
        let callback = Promise<Int>()
        if others.contains(.callback) { future.onComplete { callback.succeed($0.success ?? -1) } }
        let derived = others.contains(.derived) ? future.map { $0 + 1 } : nil
        let awaiter = others.contains(.awaiter) ? await Self.awaiting(future) : nil
        let secondAwaiter = others.contains(.secondAwaiter) ? await Self.awaiting(future) : nil

        let cancelled = await Self.awaiting(future)
        cancelled.cancel()
        #expect(isCancelled(await cancelled.value.failure))

        if others.isEmpty {
            #expect(promise.isCancelled && future.isCancelled)
            #expect(producerCancelled.elements == [1])
            return
        }
        #expect(!future.isCancelled)
        #expect(producerCancelled.elements.isEmpty)
        promise.succeed(41)
        if let derived { #expect(await derived.result.success == 42) }
        if let awaiter { #expect(await awaiter.value.success == 41) }
        if let secondAwaiter { #expect(await secondAwaiter.value.success == 41) }
        if others.contains(.callback) { #expect(await callback.future.result.success == 41) }
    }

    /// Awaiters and derived futures leave one by one, in both orders: the future is cancelled when, and only when,
    /// the last of them leaves.
    @Test(arguments: [true, false])
    func theLastObserverToLeaveCancelsTheFuture(derivedLeavesFirst: Bool) async {
        let promise = Promise<Int>()
        let future = promise.future
        let derived = future.map { $0 * 2 }
        let first = await Self.awaiting(future)
        let second = await Self.awaiting(future)
        if derivedLeavesFirst {
            derived.cancel()
            #expect(!future.isCancelled)
        }
        first.cancel()
        _ = await first.value
        #expect(!future.isCancelled)
        if !derivedLeavesFirst {
            second.cancel()
            _ = await second.value
            #expect(!future.isCancelled, "the derived future still observes it")
            derived.cancel()
        } else {
            second.cancel()
            _ = await second.value
        }
        #expect(future.isCancelled && promise.isCancelled)
    }

    /// An awaiter of a derived future that is cancelled withdraws from the derived future, which (unobserved) is
    /// cancelled and withdraws from the shared one; another awaiter of the shared future keeps it alive.
    @Test func anAwaiterOfADerivedFutureLeavesThroughTheChain() async {
        let promise = Promise<Int>()
        let future = promise.future
        let derived = future.map { $0 + 1 }
        let onDerived = Task { await derived.result }
        while derived.interestForTesting == 0 { await Task.yield() }
        let onShared = await Self.awaiting(future)
        onDerived.cancel()
        #expect(isCancelled(await onDerived.value.failure))
        #expect(derived.isCancelled)
        #expect(!future.isCancelled)
        promise.succeed(7)
        #expect(await onShared.value.success == 7)
    }

    /// 10,000 runs of completion racing the cancellation of one of two awaiters: the cancelled one gets the value
    /// or `cancelled`, the other always the value, and the future is never cancelled.
    @Test func cancellingOneAwaiterWhileTheFutureCompletesNeverFailsTheOther() async {
        let rounds = 10_000
        let failures = await withTaskGroup(of: Int.self) { group in
            var failures = 0
            for round in 0..<rounds {
                group.addTask {
                    let promise = Promise<Int>()
                    let leaving = await Self.awaiting(promise.future)
                    let staying = await Self.awaiting(promise.future)
                    DispatchQueue.global().async { promise.succeed(round) }
                    leaving.cancel()
                    let left = await leaving.value
                    let stayed = await staying.value
                    let leftIsValid = left.success == round || isCancelled(left.failure)
                    return leftIsValid && stayed.success == round && !promise.isCancelled ? 0 : 1
                }
                // At most 64 rounds at a time.
                if round >= 64 { failures += await group.next() ?? 1 }
            }
            for await failure in group { failures += failure }
            return failures
        }
        #expect(failures == 0)
    }
}
