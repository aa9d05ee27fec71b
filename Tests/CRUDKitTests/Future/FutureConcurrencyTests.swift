import Dispatch
import Testing

@testable import CRUDKit

@Suite struct FutureConcurrencyTests {
    @Test func awaitsAFutureCompletedLaterFromAnotherQueue() async throws {
        let promise = Promise<String>()
        DispatchQueue.global().async { promise.succeed("later") }
        #expect(try await promise.future.value == "later")
    }

    @Test func valueThrowsTheFailure() async {
        let promise = Promise<Int>()
        DispatchQueue.global().async { promise.fail(TestError(code: 4)) }
        await #expect(throws: TestError(code: 4)) { try await promise.future.value }
    }

    @Test func cancellingTheAwaitingTaskBeforeItWaitsCancelsTheFuture() async {
        let promise = Promise<Int>()
        let handled = Recorder<Int>()
        promise.onCancel { handled.record(1) }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await promise.future.result
        }
        #expect(isCancelled(await task.value.failure))
        #expect(handled.elements == [1])
    }

    @Test func cancellingTheAwaitingTaskWhileItWaitsCancelsTheFuture() async {
        let promise = Promise<Int>()
        let task = Task { await promise.future.result }
        // Wait until the task is suspended on the future: its continuation is registered as an observer.
        while promise.future.interestForTesting == 0 { await Task.yield() }
        task.cancel()
        #expect(isCancelled(await task.value.failure))
        #expect(promise.isCancelled)
    }

    @Test func aTaskCancelledAfterCompletionStillGetsTheValue() async throws {
        let future = Future(value: 3)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await future.value
        }
        #expect(try await task.value == 3)
    }

    @Test func everyAwaitResumesExactlyOnceWhenCompletionAndCancellationRace() async {
        let rounds = 500
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for round in 0..<rounds {
                let promise = Promise<Int>()
                let task = Task { await promise.future.result }
                group.addTask {
                    DispatchQueue.global().async { promise.succeed(round) }
                    if round.isMultiple(of: 2) { task.cancel() }
                    let result = await task.value
                    // Either the value won or cancellation did; nothing else is possible.
                    return result.success == round || isCancelled(result.failure)
                }
            }
            var all: [Bool] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.count == rounds)
        #expect(outcomes.allSatisfy { $0 })
    }
}
