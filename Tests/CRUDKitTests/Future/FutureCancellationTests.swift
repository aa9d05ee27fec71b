import Dispatch
import Foundation
import Testing

@testable import CRUDKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct FutureCancellationTests {
    @Test func cancelFailsAPendingFutureAndRunsTheProducersHandlersOnce() async {
        let promise = Promise<Int>()
        let handled = Recorder<Int>()
        promise.onCancel { handled.record(1) }
        promise.future.cancel()
        promise.future.cancel()
        #expect(isCancelled(await promise.future.result.failure))
        #expect(promise.isCancelled && promise.future.isCancelled)
        #expect(!promise.succeed(1))
        #expect(handled.elements == [1])
        promise.onCancel { handled.record(2) }
        #expect(handled.elements == [1, 2])
    }

    @Test func cancellingACompletedFutureChangesNothingAndRunsNoHandler() async throws {
        let promise = Promise<Int>()
        let handled = Recorder<Int>()
        promise.onCancel { handled.record(1) }
        promise.succeed(3)
        promise.future.cancel()
        promise.onCancel { handled.record(2) }
        #expect(try await promise.future.value == 3)
        #expect(!promise.future.isCancelled)
        #expect(handled.elements.isEmpty)
    }

    // MARK: - Future { }

    @Test func workRunsAndCompletesTheFuture() async throws {
        #expect(try await Future { 6 * 7 }.value == 42)
        let failed = Future<Int> { throw TestError(code: 1) }
        #expect(await failed.result.failure as? TestError == TestError(code: 1))
    }

    @Test func cancellingTheFutureCancelsItsWork() async {
        let workSawCancellation = Promise<Bool>()
        let future = Future<Int> {
            do {
                try await Task.sleep(nanoseconds: 3_600_000_000_000)
                workSawCancellation.succeed(false)
                return 1
            } catch {
                workSawCancellation.succeed(error is CancellationError)
                throw error
            }
        }
        future.cancel()
        #expect(isCancelled(await future.result.failure))
        #expect(await workSawCancellation.future.result.success == true)
    }

    @Test func cancellationErrorsOfTheWorkBecomeCRUDErrorCancelled() async {
        let fromTask = Future<Int> { throw CancellationError() }
        #expect(isCancelled(await fromTask.result.failure))
        let fromURLSession = Future<Int> { throw URLError(.cancelled) }
        #expect(isCancelled(await fromURLSession.result.failure))
        let other = Future<Int> { throw URLError(.timedOut) }
        #expect((await other.result.failure as? URLError)?.code == .timedOut)
    }

    // MARK: - Through chains

    @Test func cancellingAMapCancelsAnUpstreamNobodyElseObserves() async {
        let promise = Promise<Int>()
        let handled = Recorder<Int>()
        promise.onCancel { handled.record(1) }
        let mapped = promise.future.map { $0 + 1 }.map { $0 * 2 }
        mapped.cancel()
        #expect(isCancelled(await mapped.result.failure))
        #expect(isCancelled(await promise.future.result.failure))
        #expect(handled.elements == [1])
    }

    @Test func cancellingADerivedFutureSparesAnUpstreamSomethingElseObserves() async throws {
        let promise = Promise<Int>()
        let seen = Recorder<Int>()
        promise.future.onCompleteInline { seen.record($0.success ?? -1) }
        let mapped = promise.future.map { $0 + 1 }
        mapped.cancel()
        #expect(!promise.future.isCompleted)
        promise.succeed(4)
        #expect(seen.elements == [4])
        #expect(isCancelled(await mapped.result.failure))
    }

    @Test func anUpstreamIsCancelledWhenTheLastOfItsDerivedFuturesIs() async {
        let promise = Promise<Int>()
        let first = promise.future.map { $0 }
        let second = promise.future.map { $0 }
        first.cancel()
        #expect(!promise.future.isCompleted)
        second.cancel()
        #expect(isCancelled(await promise.future.result.failure))
    }

    @Test func cancellingAFlatMapCancelsTheInnerFutureItWaitsFor() async {
        let inner = Promise<Int>()
        let innerCancelled = Recorder<Bool>()
        inner.onCancel { innerCancelled.record(true) }
        let chained = Future(value: 1).flatMap { _ in inner.future }
        chained.cancel()
        #expect(innerCancelled.elements == [true])
        #expect(isCancelled(await chained.result.failure))
    }

    @Test func cancellingAFlatMapBeforeItsUpstreamCompletesCancelsTheUpstream() async {
        let upstream = Promise<Int>()
        let made = Recorder<Int>()
        let chained = upstream.future.flatMap { value in
            made.record(value); return Future(value: value)
        }
        chained.cancel()
        #expect(upstream.future.isCancelled)
        #expect(made.elements.isEmpty)
    }

    @Test func cancellingZipAllAndRaceCancelsTheirInputs() {
        let (left, right) = (Promise<Int>(), Promise<Int>())
        left.future.zip(right.future).cancel()
        #expect(left.isCancelled && right.isCancelled)

        let inputs = (0..<3).map { _ in Promise<Int>() }
        Future.all(inputs.map(\.future)).cancel()
        #expect(inputs.allSatisfy { $0.isCancelled })

        let runners = (0..<3).map { _ in Promise<Int>() }
        Future.firstCompleted(of: runners.map(\.future)).cancel()
        #expect(runners.allSatisfy { $0.isCancelled })
    }

    @Test func recoverCanTurnACancelledUpstreamIntoAValue() async throws {
        let promise = Promise<Int>()
        let recovered = promise.future.recover { error in isCancelled(error) ? -1 : 0 }
        promise.future.cancel()
        #expect(try await recovered.value == -1)
    }
}
