import Dispatch
import Testing

@testable import CRUDKit
@testable import CRUDKitFuture

/// A caller who left costs nothing: a cancelled `await`, a cancelled derived future and a finished
/// `firstCompleted`/`zip`/`all` take their observer back from a future that is still pending, so its observer
/// count returns to where it was.
/// The N, 100,000; under a sanitizer (5–10× slower, and here to find races, not to count) 10,000.
private let hundredThousand = TestEnvironment.underSanitizer ? 10_000 : 100_000

@Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct FutureObserverRemovalTests {
    /// A pending future with one observer elsewhere (the baseline), which keeps it from being cancelled.
    private func sharedPending() -> Promise<Int> {
        let promise = Promise<Int>()
        promise.future.onCompleteInline { _ in }
        return promise
    }

    @Test func aHundredThousandCancelledAwaitsLeaveTheObserverCountAtItsBaseline() async {
        let shared = sharedPending()
        let baseline = shared.future.observerCount
        #expect(baseline == 1)
        // Each `await` in a cancelled task registers its observer, then takes it back at once.
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var cancelled = 0
            for index in 0..<hundredThousand {
                if isCancelled(await shared.future.result.failure) { cancelled += 1 }
                // A cancelled await returns without suspending: give the pool's thread back now and then, so
                // other suites' tasks are not starved for the length of the loop.
                if index % 1_000 == 0 { await Task.yield() }
            }
            return cancelled
        }
        #expect(await task.value == hundredThousand)
        #expect(shared.future.observerCount == baseline)
        #expect(!shared.future.isCompleted)
    }

    @Test func awaitsCancelledWhileWaitingTakeTheirObserversBack() async {
        let shared = sharedPending()
        let waits = 2_000
        let tasks = (0..<waits).map { _ in Task { await shared.future.result } }
        await waitUntil { shared.future.observerCount == waits + 1 }
        tasks.forEach { $0.cancel() }
        for task in tasks { #expect(isCancelled(await task.value.failure)) }
        #expect(shared.future.observerCount == 1)
        // The future goes on for its remaining observer.
        #expect(!shared.future.isCompleted)
        shared.succeed(7)
        #expect(shared.future.observerCount == 0)
    }

    @Test func aHundredThousandCancelledDerivedFuturesLeaveTheCountAtItsBaseline() async {
        let shared = sharedPending()
        await onOwnThread {
            for _ in 0..<hundredThousand / 4 {
                shared.future.map { $0 + 1 }.cancel()
                shared.future.flatMap { Future(value: $0) }.cancel()
                shared.future.recover { _ in 0 }.cancel()
                shared.future.mapError { $0 }.cancel()
            }
        }
        #expect(shared.future.observerCount == 1)
        #expect(!shared.future.isCompleted)
    }

    @Test func aHundredThousandFinishedRacesLeaveTheLoserAtItsBaseline() async {
        let loser = sharedPending()
        let (wrongWinners, countAfterRaces) = await onOwnThread {
            var wrongWinners = 0
            for index in 0..<hundredThousand {
                let winner = Promise<Int>()
                let race = Future.firstCompleted(of: [loser.future, winner.future])
                winner.succeed(index)
                if race.completedResult?.success != index { wrongWinners += 1 }
            }
            let countAfterRaces = loser.future.observerCount
            // A race against a future that has completed already leaves nothing either.
            for _ in 0..<1_000 { _ = Future.firstCompleted(of: [Future(value: 1), loser.future]) }
            return (wrongWinners, countAfterRaces)
        }
        #expect(wrongWinners == 0)
        #expect(countAfterRaces == 1)
        #expect(loser.future.observerCount == 1)
        #expect(!loser.future.isCompleted)
    }

    @Test func finishedZipsAndAllsLeaveThePendingInputAtItsBaseline() async {
        let pending = sharedPending()
        let notFailed = await onOwnThread {
            var notFailed = 0
            for _ in 0..<10_000 {
                let failing = Promise<Int>()
                let zipped = pending.future.zip(failing.future)
                let reversed = failing.future.zip(pending.future)
                let all = Future.all([pending.future, failing.future])
                failing.fail(TestError())
                if !(zipped.completedResult?.failure is TestError) { notFailed += 1 }
                if !(reversed.completedResult?.failure is TestError) { notFailed += 1 }
                if !(all.completedResult?.failure is TestError) { notFailed += 1 }
                // An input failed already: the pending one registered after that is released too.
                _ = pending.future.zip(Future<Int>(error: TestError()))
                _ = Future.all([Future<Int>(error: TestError()), pending.future])
            }
            return notFailed
        }
        #expect(notFailed == 0)
        #expect(pending.future.observerCount == 1)
        #expect(!pending.future.isCompleted)
    }

    @Test func cancellingCombinatorsWithdrawsTheirInterest() {
        let first = Promise<Int>()
        let second = Promise<Int>()
        let race = Future.firstCompleted(of: [first.future, second.future])
        #expect(first.future.observerCount == 1)
        race.cancel()
        // They had no other observer: cancelling the race cancels them.
        #expect(first.future.isCancelled && second.future.isCancelled)

        let shared = sharedPending()
        let other = Promise<Int>()
        shared.future.zip(other.future).cancel()
        #expect(shared.future.observerCount == 1)
        #expect(!shared.future.isCompleted)
        #expect(other.future.isCancelled)
    }

    @Test func callbacksKeepTheirOrderAfterOthersLeave() {
        let promise = Promise<Int>()
        let order = Recorder<Int>()
        for index in 0..<10 {
            promise.future.onCompleteInline { _ in order.record(index) }
            promise.future.map { $0 }.cancel()
        }
        #expect(promise.future.observerCount == 10)
        promise.succeed(1)
        #expect(order.elements == Array(0..<10))
    }
}
