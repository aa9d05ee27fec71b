import Dispatch
import Testing

@testable import CRUDKit

@Suite struct FutureTests {
    @Test func readyMadeFuturesHoldTheirOutcome() async throws {
        #expect(try await Future(value: 7).value == 7)
        #expect(await Future<Int>(error: TestError(code: 3)).result.failure as? TestError == TestError(code: 3))
        #expect(try await Future<Int>(result: .success(1)).value == 1)
        #expect(Future(value: 1).isCompleted)
    }

    @Test func aPromiseCompletesItsFutureOnceAndTheFirstCompletionWins() async throws {
        let promise = Promise<Int>()
        #expect(!promise.future.isCompleted)
        #expect(promise.succeed(1))
        #expect(!promise.succeed(2))
        #expect(!promise.fail(TestError()))
        #expect(!promise.complete(with: .success(3)))
        #expect(try await promise.future.value == 1)
    }

    @Test func callbacksChainAndEachSeesItsCase() async {
        let promise = Promise<Int>()
        let recorder = Recorder<String>()
        await confirmation(expectedCount: 2) { called in
            let done = Promise<Void>()
            promise.future
                .onSuccess {
                    recorder.record("success \($0)"); called()
                }
                .onFailure { _ in recorder.record("failure") }
                .onComplete { _ in
                    called(); done.succeed(())
                }
            promise.succeed(5)
            _ = await done.future.result
        }
        #expect(recorder.elements == ["success 5"])

        let failed = Future<Int>(error: TestError(code: 9))
        let error = await withCheckedContinuation { continuation in
            failed.onSuccess { _ in continuation.resume(returning: TestError(code: -1)) }
                .onFailure { continuation.resume(returning: $0 as? TestError ?? TestError(code: -2)) }
        }
        #expect(error == TestError(code: 9))
    }

    @Test func callbacksRunOnceEachInRegistrationOrderBeforeAndAfterCompletion() async {
        let queue = DispatchQueue(label: "order")
        let promise = Promise<Int>(callbackQueue: queue)
        let recorder = Recorder<Int>()
        for index in 0..<50 { promise.future.onComplete { _ in recorder.record(index) } }
        promise.succeed(0)
        for index in 50..<100 { promise.future.onComplete { _ in recorder.record(index) } }
        _ = await promise.future.outcome()
        #expect(recorder.elements == Array(0..<100))
    }

    @Test func inlineCallbacksRunOnTheCompletingThreadOrAtOnce() {
        let promise = Promise<Int>()
        let recorder = Recorder<Int>()
        promise.future.onCompleteInline { recorder.record($0.success ?? -1) }
        #expect(recorder.elements.isEmpty)
        promise.succeed(4)
        #expect(recorder.elements == [4])
        promise.future.onCompleteInline { recorder.record(($0.success ?? -1) + 1) }
        #expect(recorder.elements == [4, 5])
    }

    @Test func aCompletedChainIsReleased() {
        weak var first: Future<Int>?
        weak var mapped: Future<Int>?
        weak var flat: Future<String>?
        weak var recovered: Future<String>?
        weak var inner: Future<String>?
        let seen = Recorder<String>()
        do {
            let promise = Promise<Int>()
            let innerPromise = Promise<String>()
            let chain = promise.future.map { $0 + 1 }
            let flatChain = chain.flatMap { _ in innerPromise.future }
            let end = flatChain.recover { _ in "recovered" }
            end.onCompleteInline { seen.record($0.success ?? "") }
            first = promise.future
            mapped = chain
            flat = flatChain
            recovered = end
            inner = innerPromise.future
            #expect(first != nil && recovered != nil)
            promise.succeed(1)
            innerPromise.succeed("done")
            #expect(end.state.withLock { $0.observers.isEmpty && $0.cancelHandlers.isEmpty })
        }
        #expect(seen.elements == ["done"])
        #expect(first == nil)
        #expect(mapped == nil)
        #expect(flat == nil)
        #expect(recovered == nil)
        #expect(inner == nil)
    }

    @Test func aPendingChainIsKeptAliveByItsPromise() async throws {
        weak var mapped: Future<Int>?
        let promise = Promise<Int>()
        let recorder = Recorder<Int>()
        do {
            let chain = promise.future.map { $0 * 2 }
            chain.onCompleteInline { recorder.record($0.success ?? -1) }
            mapped = chain
        }
        #expect(mapped != nil)
        promise.succeed(21)
        #expect(recorder.elements == [42])
        #expect(mapped == nil)
    }
}
