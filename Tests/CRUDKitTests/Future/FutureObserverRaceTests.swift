import Dispatch
import Foundation
import Testing

@testable import CRUDKit
@testable import CRUDKitFuture

/// Observers kept by key: callback order after removals, re-entrant callbacks and transforms, combinators that
/// watch the same future twice, cancellation racing completion, and the removal path on deep chains.
@Suite(.timeLimit(.minutes(TestEnvironment.minutes(2)))) struct FutureObserverRaceTests {
    @Test func callbacksRunInRegistrationOrderAfterKeyedObserversLeave() async {
        let promise = Promise<Int>()
        let order = Recorder<String>()
        let first = promise.future.map { $0 }
        promise.future.onCompleteInline { _ in order.record("A") }
        let waiter = Task { await promise.future.result }
        await waitUntil { promise.future.observerCount == 3 }
        promise.future.onCompleteInline { _ in order.record("B") }
        first.cancel()
        waiter.cancel()
        _ = await waiter.value
        promise.future.onCompleteInline { _ in order.record("C") }
        let kept = promise.future.map { $0 * 2 }
        kept.onCompleteInline { _ in order.record("D") }
        promise.future.onCompleteInline { _ in order.record("E") }
        #expect(promise.future.observerCount == 5)
        promise.succeed(1)
        #expect(order.elements == ["A", "B", "C", "D", "E"])
        #expect(kept.completedResult?.success == 2)
    }

    @Test func aCallbackAddedDuringCompletionRunsOnceAfterTheOthers() {
        let promise = Promise<Int>()
        let order = Recorder<String>()
        let future = promise.future
        future.onCompleteInline { _ in
            order.record("A")
            future.onCompleteInline { _ in order.record("late") }
            _ = future.map { $0 }.onCompleteInline { _ in order.record("late map") }
        }
        future.onCompleteInline { _ in order.record("B") }
        promise.succeed(1)
        // A callback added to the completing future queues behind the ones registered before it. (A `map` made
        // then is complete already: its own callback runs at once, so "late map" may come before "B".)
        #expect(order.elements.filter { $0 != "late map" } == ["A", "B", "late"])
        #expect(order.elements.count == 4)
        #expect(future.observerCount == 0)
    }

    @Test func aTransformThatCancelsItsOwnFutureRunsOnceAndEndsCancelled() {
        let promise = Promise<Int>()
        let runs = Locked(0)
        let holder = Locked<Future<Int>?>(nil)
        let derived = promise.future.map { value -> Int in
            runs.withLock { $0 += 1 }
            holder.withLock { $0 }?.cancel()
            promise.future.cancel()
            promise.succeed(99)
            return value
        }
        holder.withLock { $0 = derived }
        promise.succeed(1)
        #expect(runs.withLock { $0 } == 1)
        #expect(derived.isCancelled)
        #expect(promise.future.completedResult?.success == 1)

        // flatMap: the future the transform made is cancelled with it.
        let source = Promise<Int>()
        let inner = Promise<Int>()
        let flatHolder = Locked<Future<Int>?>(nil)
        let flat = source.future.flatMap { _ -> Future<Int> in
            flatHolder.withLock { $0 }?.cancel()
            return inner.future
        }
        flatHolder.withLock { $0 = flat }
        source.succeed(1)
        #expect(flat.isCancelled)
        #expect(inner.future.isCancelled)
        #expect(inner.future.observerCount == 0)
    }

    @Test func combinatorsGivenTheSameFutureTwiceKeepEverySlot() {
        let promise = Promise<Int>()
        promise.future.onCompleteInline { _ in }
        let zipped = promise.future.zip(promise.future)
        let all = Future.all([promise.future, promise.future, promise.future])
        let race = Future.firstCompleted(of: [promise.future, promise.future])
        #expect(promise.future.observerCount == 1 + 2 + 3 + 2)
        promise.succeed(4)
        #expect(zipped.completedResult.map { "\($0)" } == "\(Result<(Int, Int), any Error>.success((4, 4)))")
        #expect(all.completedResult?.success == [4, 4, 4])
        #expect(race.completedResult?.success == 4)

        let shared = Promise<Int>()
        shared.future.onCompleteInline { _ in }
        for _ in 0..<1_000 {
            shared.future.zip(shared.future).cancel()
            Future.all([shared.future, shared.future, shared.future]).cancel()
            Future.firstCompleted(of: [shared.future, shared.future]).cancel()
        }
        #expect(shared.future.observerCount == 1)
        #expect(!shared.future.isCompleted)

        // Alone on it: cancelling the combinator cancels the future once its last slot leaves.
        let alone = Promise<Int>()
        Future.all([alone.future, alone.future]).cancel()
        #expect(alone.future.isCancelled)
    }

    @Test func cancelRacingCompletionFromEightThreadsEndsOneWay() async {
        // On a thread of its own: `concurrentPerform` blocks its caller until the eight blocks have run.
        let wrongRounds = await onOwnThread {
            var wrongRounds: [String] = []
            for round in 0..<1_000 {
                let promise = Promise<Int>()
                let transforms = Locked(0)
                let outcomes = Locked(0)
                let derived = promise.future.map { value -> Int in
                    transforms.withLock { $0 += 1 }
                    return value
                }
                derived.onCompleteInline { _ in outcomes.withLock { $0 += 1 } }
                let other = promise.future.flatMap { Future(value: $0) }
                DispatchQueue.concurrentPerform(iterations: 8) { index in
                    switch index % 4 {
                    case 0: derived.cancel()
                    case 1: promise.succeed(round)
                    case 2: other.cancel()
                    default: promise.future.cancel()
                    }
                }
                let ran = transforms.withLock { $0 }
                let wrong =
                    outcomes.withLock { $0 } != 1 || ran > 1 || (derived.completedResult?.success != nil && ran != 1)
                    || !promise.future.isCompleted || promise.future.observerCount != 0
                if wrong {
                    wrongRounds.append(
                        "round \(round): \(outcomes.withLock { $0 }) outcomes, \(ran) transforms, derived "
                            + "\(String(describing: derived.completedResult)), \(promise.future.observerCount) observers"
                    )
                }
            }
            return wrongRounds
        }
        #expect(wrongRounds.isEmpty, "\(wrongRounds.prefix(5))")
    }

    @Test func awaitsCancelledRacingCompletionLeaveNothingBehind() async {
        let shared = Promise<Int>()
        shared.future.onCompleteInline { _ in }
        // A wait that gives up after a timeout, 2,000 times: the loser of each race is cancelled.
        for _ in 0..<2_000 {
            let result = await withTaskGroup(of: Int?.self) { group in
                group.addTask { await shared.future.result.success }
                group.addTask { nil }
                let first = await group.next() ?? nil
                group.cancelAll()
                await group.waitForAll()
                return first
            }
            #expect(result == nil)
        }
        #expect(shared.future.observerCount == 1)
        #expect(!shared.future.isCompleted)
    }

    @Test func aDerivedFutureCancelledWhileItsTransformRunsEndsCancelled() async {
        let promise = Promise<Int>()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let inner = Promise<Int>()
        let flat = promise.future.flatMap { _ -> Future<Int> in
            entered.signal()
            proceed.wait()
            return inner.future
        }
        let mapped = promise.future.map { value -> Int in value }
        await onOwnThread(stackSize: 1 << 20) {
            DispatchQueue.global().async { promise.succeed(1) }
            entered.wait()
            flat.cancel()
            proceed.signal()
        }
        await waitUntil { inner.future.isCompleted }
        #expect(flat.isCancelled)
        #expect(inner.future.isCancelled)
        #expect(mapped.completedResult?.success == 1)
    }

    @Test func aThirtyThousandDeepChainCancelsThroughTheRemovalPathOnASmallStack() async {
        let outcome = Locked<(Bool, Int, Bool)?>(nil)
        await onOwnThread(stackSize: 512 * 1024) {
            let root = Promise<Int>()
            root.future.onCompleteInline { _ in }
            var tail = root.future
            for index in 0..<30_000 {
                switch index % 3 {
                case 0: tail = tail.map { $0 + 1 }
                case 1: tail = Future.firstCompleted(of: [tail])
                default: tail = tail.zip(tail).map { $0.0 }
                }
            }
            tail.cancel()
            let afterCancel = (tail.isCancelled, root.future.observerCount, root.future.isCompleted)
            outcome.withLock { $0 = afterCancel }
            root.succeed(1)
        }
        let (cancelled, observers, rootCompleted) = outcome.withLock { $0 } ?? (false, -1, true)
        #expect(cancelled)
        #expect(observers == 1)
        #expect(!rootCompleted)
    }

    @Test func aThirtyThousandDeepChainOfCombinatorsCompletesOnASmallStack() async {
        let outcome = Locked<Int?>(nil)
        await onOwnThread(stackSize: 512 * 1024) {
            let root = Promise<Int>()
            var tail = root.future
            for index in 0..<30_000 {
                switch index % 3 {
                case 0: tail = tail.map { $0 + 1 }
                case 1: tail = Future.all([tail, tail]).map { $0[0] }
                default: tail = tail.zip(tail).map { $0.0 }
                }
            }
            root.succeed(0)
            outcome.withLock { $0 = tail.completedResult?.success }
        }
        #expect(outcome.withLock { $0 } == 10_000)
    }
}
