import Dispatch
import Foundation
import Testing

@testable import CRUDKit

/// Long chains of futures complete and cancel in constant stack: each case runs on a 512 KB thread (the stack
/// size of GCD and Swift-concurrency threads on Apple platforms) and on a normal one.
@Suite(.timeLimit(.minutes(TestEnvironment.minutes(5)))) struct FutureDeepChainTests {
    /// Runs `body` on a thread with `stackSize` bytes of stack and waits for it without blocking a thread of the
    /// cooperative pool (the suite's time limit bounds the wait); returns true once the thread has finished.
    private func runOnThread(stackSize: Int?, _ body: @escaping @Sendable () -> Void) async -> Bool {
        await withCheckedContinuation { (finished: CheckedContinuation<Bool, Never>) in
            let thread = Thread {
                body()
                finished.resume(returning: true)
            }
            if let stackSize { thread.stackSize = stackSize }
            thread.start()
        }
    }

    /// Steps of the long chains: 100,000, or 20,000 under a sanitizer, which makes every step many times slower
    /// (still far deeper than a recursive completion could go on a 512 KB thread with instrumented frames).
    private static let steps = TestEnvironment.underSanitizer ? 20_000 : 100_000

    private static let stackSizes: [Int?] = [512 * 1024, nil]

    /// 30,000 pending `map`s hanging off one promise, completed once.
    @Test(arguments: stackSizes)
    func completingThirtyThousandPendingMaps(stackSize: Int?) async {
        let outcome = Locked<Int?>(nil)
        let finished = await runOnThread(stackSize: stackSize) {
            let promise = Promise<Int>()
            var tail = promise.future
            for _ in 0..<30_000 { tail = tail.map { $0 + 1 } }
            tail.onCompleteInline { result in outcome.withLock { $0 = result.success } }
            promise.succeed(0)
        }
        #expect(finished)
        #expect(outcome.withLock { $0 } == 30_000)
    }

    /// A 100,000-step serial `flatMap` whose steps return completed futures, and one whose steps return
    /// futures completed later (a loop written as recursion, whose innermost future completes last).
    @Test(arguments: stackSizes)
    func hundredThousandStepSerialFlatMap(stackSize: Int?) async {
        let immediate = Locked<Int?>(nil)
        let later = Locked<Int?>(nil)
        let finished = await runOnThread(stackSize: stackSize) {
            let steps = Self.steps
            let start = Promise<Int>()
            var tail = start.future
            for _ in 0..<steps { tail = tail.flatMap { Future(value: $0 + 1) } }
            tail.onCompleteInline { result in immediate.withLock { $0 = result.success } }
            start.succeed(0)

            // A loop written as recursion: step n waits for its own promise, then hands back step n - 1, so
            // the outer futures follow ever deeper ones, and the last promise completes all of them at once.
            let promises = (0...steps).map { _ in Promise<Int>() }
            @Sendable func loop(_ n: Int) -> Future<Int> {
                if n == 0 { return promises[0].future }
                return promises[n].future.flatMap { _ in loop(n - 1) }
            }
            let outer = loop(steps)
            outer.onCompleteInline { result in later.withLock { $0 = result.success } }
            for n in stride(from: steps, through: 1, by: -1) { promises[n].succeed(n) }
            promises[0].succeed(steps)
        }
        #expect(finished)
        #expect(immediate.withLock { $0 } == Self.steps)
        #expect(later.withLock { $0 } == Self.steps)
    }

    /// Cancelling the tail of 100,000 maps cancels every future up to the promise.
    @Test(arguments: stackSizes)
    func cancellingTheTailOfHundredThousandMaps(stackSize: Int?) async {
        let headCancelled = Locked(false)
        let tailError = Locked<(any Error)?>(nil)
        let finished = await runOnThread(stackSize: stackSize) {
            let promise = Promise<Int>()
            promise.onCancel { headCancelled.withLock { $0 = true } }
            var tail = promise.future
            for _ in 0..<Self.steps { tail = tail.map { $0 + 1 } }
            tail.onCompleteInline { result in tailError.withLock { $0 = result.failure } }
            tail.cancel()
        }
        #expect(finished)
        #expect(headCancelled.withLock { $0 })
        #expect(isCancelled(tailError.withLock { $0 }))
    }
}
