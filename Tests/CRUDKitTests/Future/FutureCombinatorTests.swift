import Dispatch
import Testing

@testable import CRUDKit

@Suite struct FutureCombinatorTests {
    // MARK: - map

    @Test func mapTransformsTheValueOfPendingAndCompletedFutures() async throws {
        let promise = Promise<Int>()
        let pending = promise.future.map { "\($0)" }
        promise.succeed(3)
        #expect(try await pending.value == "3")
        #expect(try await Future(value: 2).map { $0 * 10 }.value == 20)
    }

    @Test func mapPassesAFailureThroughWithoutCallingTheTransform() async {
        let called = Recorder<Int>()
        let mapped = Future<Int>(error: TestError(code: 1)).map {
            called.record($0); return $0
        }
        #expect(await mapped.result.failure as? TestError == TestError(code: 1))
        #expect(called.elements.isEmpty)
    }

    @Test func aThrowingMapFailsTheResult() async {
        let promise = Promise<Int>()
        let mapped = promise.future.map { _ -> Int in throw TestError(code: 2) }
        promise.succeed(1)
        #expect(await mapped.result.failure as? TestError == TestError(code: 2))
        #expect(
            await Future(value: 1).map { _ -> Int in throw TestError(code: 4) }.result.failure as? TestError
                == TestError(code: 4))
    }

    // MARK: - flatMap

    @Test func flatMapContinuesWithTheNextFuture() async throws {
        let first = Promise<Int>()
        let second = Promise<String>()
        let chained = first.future.flatMap { value in second.future.map { "\(value)\($0)" } }
        first.succeed(1)
        #expect(!chained.isCompleted)
        second.succeed("a")
        #expect(try await chained.value == "1a")
    }

    @Test func flatMapFailsWithTheUpstreamTheTransformOrTheInnerError() async {
        let upstream = Future<Int>(error: TestError(code: 1)).flatMap { Future(value: $0) }
        #expect(await upstream.result.failure as? TestError == TestError(code: 1))
        let throwing = Future(value: 1).flatMap { _ -> Future<Int> in throw TestError(code: 2) }
        #expect(await throwing.result.failure as? TestError == TestError(code: 2))
        let inner = Future(value: 1).flatMap { _ in Future<Int>(error: TestError(code: 3)) }
        #expect(await inner.result.failure as? TestError == TestError(code: 3))
    }

    // MARK: - mapError and recover

    @Test func mapErrorReplacesTheErrorAndKeepsAValue() async throws {
        let mapped = Future<Int>(error: TestError(code: 1)).mapError { _ in TestError(code: 10) }
        #expect(await mapped.result.failure as? TestError == TestError(code: 10))
        #expect(try await Future(value: 5).mapError { _ in TestError(code: 10) }.value == 5)
    }

    @Test func recoverToAValue() async throws {
        #expect(try await Future<Int>(error: TestError()).recover { _ in 8 }.value == 8)
        #expect(try await Future(value: 1).recover { _ in 8 }.value == 1)
        let throwing = Future<Int>(error: TestError(code: 1)).recover { _ -> Int in throw TestError(code: 2) }
        #expect(await throwing.result.failure as? TestError == TestError(code: 2))
    }

    @Test func recoverToAFuture() async throws {
        let fallback = Promise<Int>()
        let recovered = Future<Int>(error: TestError()).recover { _ in fallback.future }
        fallback.succeed(9)
        #expect(try await recovered.value == 9)
        #expect(try await Future(value: 1).recover { _ in Future(value: 2) }.value == 1)
        let failing = Future<Int>(error: TestError(code: 1)).recover { _ in Future<Int>(error: TestError(code: 5)) }
        #expect(await failing.result.failure as? TestError == TestError(code: 5))
        let throwing = Future<Int>(error: TestError()).recover { _ -> Future<Int> in throw TestError(code: 6) }
        #expect(await throwing.result.failure as? TestError == TestError(code: 6))
    }

    // MARK: - zip

    @Test func zipPairsBothValuesInWhicheverOrderTheyArrive() async throws {
        let left = Promise<Int>()
        let right = Promise<String>()
        let zipped = left.future.zip(right.future)
        right.succeed("b")
        #expect(!zipped.isCompleted)
        left.succeed(1)
        let (number, text) = try await zipped.value
        #expect(number == 1 && text == "b")
    }

    @Test func zipFailsWithTheFirstFailureOfEither() async {
        let right = Promise<Int>()
        let zipped = Future(value: 1).zip(right.future)
        right.fail(TestError(code: 2))
        #expect(await zipped.result.failure as? TestError == TestError(code: 2))
        let leftFails = Future<Int>(error: TestError(code: 3)).zip(Promise<Int>().future)
        #expect(await leftFails.result.failure as? TestError == TestError(code: 3))
    }

    // MARK: - all

    @Test func allKeepsInputOrderWhateverTheCompletionOrder() async throws {
        let promises = (0..<5).map { _ in Promise<Int>() }
        let all = Future.all(promises.map(\.future))
        for (index, promise) in promises.enumerated().reversed() { promise.succeed(index * 10) }
        #expect(try await all.value == [0, 10, 20, 30, 40])
        #expect(try await Future<Int>.all([]).value == [])
        #expect(try await Future.all([Future(value: 1), Future(value: 2)]).value == [1, 2])
    }

    @Test func allFailsWithTheFirstFailure() async {
        let pending = Promise<Int>()
        let all = Future.all([Future(value: 1), pending.future, Future(error: TestError(code: 7))])
        #expect(await all.result.failure as? TestError == TestError(code: 7))
    }

    // MARK: - firstCompleted

    @Test func firstCompletedTakesTheFirstOutcomeValueOrError() async throws {
        let slow = Promise<Int>()
        let fast = Promise<Int>()
        let first = Future.firstCompleted(of: [slow.future, fast.future])
        fast.succeed(2)
        slow.succeed(1)
        #expect(try await first.value == 2)

        let failing = Promise<Int>()
        let raced = Future.firstCompleted(of: [Promise<Int>().future, failing.future])
        failing.fail(TestError(code: 3))
        #expect(await raced.result.failure as? TestError == TestError(code: 3))
    }

    @Test func firstCompletedOfNothingFailsInsteadOfHanging() async {
        let error = await Future<Int>.firstCompleted(of: []).result.failure as? CRUDError
        guard case .invalidRequest = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
    }

    // MARK: - queues of derived futures

    @Test func derivedFuturesUseTheirUpstreamsCallbackQueue() async {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "derived")
        queue.setSpecific(key: key, value: "derived")
        let promise = Promise<Int>(callbackQueue: queue)
        let chained = promise.future.map { $0 + 1 }.flatMap { Future(value: $0) }.recover { _ in 0 }
        promise.succeed(1)
        let label = await withCheckedContinuation { continuation in
            chained.onSuccess { _ in continuation.resume(returning: DispatchQueue.getSpecific(key: key)) }
        }
        #expect(label == "derived")
    }
}
