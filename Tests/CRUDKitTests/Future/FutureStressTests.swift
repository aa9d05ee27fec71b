import Dispatch
import Testing

@testable import CRUDKit

@Suite struct FutureStressTests {
    /// Thousands of futures, each completed by two racing threads and observed from many threads (some
    /// callbacks registered before completion, some after, some inline, some on queues).
    @Test func everyCallbackRunsExactlyOnceAndTheFirstCompletionWins() async {
        let futures = 2_000
        let observersPerFuture = 4
        let promises = (0..<futures).map { _ in Promise<Int>() }
        let winners = Locked([[Int]](repeating: [], count: futures))
        let seen = Locked([[Int]](repeating: [], count: futures))
        let queues = (0..<4).map { DispatchQueue(label: "stress-\($0)") }
        let group = DispatchGroup()
        for _ in 0..<(futures * observersPerFuture) { group.enter() }

        let observe: @Sendable (Int, Int) -> Void = { index, observer in
            let record: @Sendable (Result<Int, any Error>) -> Void = { result in
                seen.withLock { $0[index].append(result.success ?? -1) }
                group.leave()
            }
            if observer.isMultiple(of: 2) {
                promises[index].future.onCompleteInline(record)
            } else {
                promises[index].future.onComplete(on: queues[observer % queues.count], record)
            }
        }
        let complete: @Sendable (Int, Int) -> Void = { index, value in
            if promises[index].succeed(value) { winners.withLock { $0[index].append(value) } }
        }

        // Each job either observes or completes one future; jobs for one future run on different threads.
        DispatchQueue.concurrentPerform(iterations: futures * (observersPerFuture + 2)) { job in
            let index = job % futures
            let role = job / futures
            if role < observersPerFuture {
                observe(index, role)
            } else {
                complete(index, role)
            }
        }
        await withCheckedContinuation { continuation in
            group.notify(queue: .global()) { continuation.resume() }
        }
        let allWinners = winners.withLock { $0 }
        let allSeen = seen.withLock { $0 }
        // Exactly one completer won each future, and each of its callbacks ran once and saw the winner's value.
        #expect(allWinners.allSatisfy { $0.count == 1 })
        for index in 0..<futures
        where allSeen[index] != Array(repeating: allWinners[index].first ?? -2, count: observersPerFuture) {
            Issue.record("future \(index): winner \(allWinners[index]), callbacks saw \(allSeen[index])")
        }
    }

    @Test func chainsCompletedFromManyThreadsDeliverEveryValueOnce() async {
        let count = 5_000
        let total = Locked(0)
        let group = DispatchGroup()
        for _ in 0..<count { group.enter() }
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let promise = Promise<Int>()
            promise.future.map { $0 + 1 }.flatMap { Future(value: $0 * 2) }.onSuccess { value in
                total.withLock { $0 += value }
                group.leave()
            }
            DispatchQueue.global().async { promise.succeed(index) }
        }
        await withCheckedContinuation { continuation in
            group.notify(queue: .global()) { continuation.resume() }
        }
        let expected: Int = (0..<count).map { ($0 + 1) * 2 }.reduce(0, +)
        #expect(total.withLock { $0 } == expected)
    }
}
