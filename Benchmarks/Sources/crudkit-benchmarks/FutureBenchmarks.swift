import CRUDKit
import Dispatch

/// The Future suite: a chain of `map`s against plain closures, and `await` against a bare continuation.
///
/// Returns whether every target was met.
func runFutureBenchmarks(_ options: BenchmarkOptions) async throws -> Bool {
    printSuiteHeader("Future")
    var met = true
    met = chainBenchmarks(options) && met
    met = try await awaitBenchmarks(options) && met
    return met
}

/// Keeps results alive so the optimizer cannot drop the work that made them.
private let sink = Sink()

private final class Sink: Sendable {
    private let total = LockFreeCounter()
    func consume(_ value: Int) { total.add(value) }
}

/// A counter the benchmark closures write to, cheap enough not to dominate what is measured.
private final class LockFreeCounter: Sendable {
    private let queue = DispatchQueue(label: "bench.counter")
    func add(_ value: Int) {
        // Reading and writing an opaque global keeps the closures from being folded away.
        if value == Int.min { queue.sync {} }
    }
}

/// The baseline chain: ten closures composed on the heap and called, then an observer closure.
///
/// Each closure goes through `opaque` so the optimizer cannot fold the chain into one addition: like the futures,
/// the chain is built on the heap for every operation.
@inline(never)
private func closureChain(_ start: Int, observer: (Int) -> Void) {
    var chain: (Int) -> Int = opaque { $0 }
    for _ in 0..<10 {
        let previous = chain
        chain = opaque { previous($0) + 1 }
    }
    observer(chain(start))
}

/// Hands `closure` back through a function the optimizer does not look into.
@_optimize(none)
private func opaque(_ closure: @escaping (Int) -> Int) -> (Int) -> Int { closure }

/// The chain from a promise: complete it, ten `map`s, and one observer.
@inline(never)
private func futureChain(_ start: Int, queue: DispatchQueue?) {
    let promise = Promise<Int>()
    promise.succeed(start)
    var future = promise.future
    for _ in 0..<10 { future = future.map { $0 + 1 } }
    if let queue {
        future.onSuccess(on: queue) { sink.consume($0) }
    } else {
        future.onCompleteInline { result in if case .success(let value) = result { sink.consume(value) } }
    }
}

/// The same chain, built on a pending promise that is completed afterwards.
@inline(never)
private func pendingFutureChain(_ start: Int) {
    let promise = Promise<Int>()
    var future = promise.future
    for _ in 0..<10 { future = future.map { $0 + 1 } }
    future.onCompleteInline { result in if case .success(let value) = result { sink.consume(value) } }
    promise.succeed(start)
}

/// Like `nanosecondsPerIteration`, but each round also waits for `queue` to run what was sent to it.
private func nanosecondsPerIteration(iterations: Int, draining queue: DispatchQueue, _ body: () -> Void) -> Double {
    var best = Double.infinity
    for _ in 0..<5 {
        let start = now()
        for _ in 0..<iterations { body() }
        queue.sync {}
        best = min(best, Double(now() - start) / Double(iterations))
    }
    return best
}

private func chainBenchmarks(_ options: BenchmarkOptions) -> Bool {
    let iterations = options.iterations(200_000)
    var counter = 0
    let baseline = nanosecondsPerIteration(iterations: iterations) {
        counter += 1
        closureChain(counter) { sink.consume($0) }
    }
    var met = true
    let inline = nanosecondsPerIteration(iterations: iterations) {
        counter += 1
        futureChain(counter, queue: nil)
    }
    met =
        report(
            "promise + 10 maps + inline callback", ours: inline, baseline: baseline,
            baselineName: "10 composed closures + observer closure", unit: .nanoseconds, target: 5) && met
    let pending = nanosecondsPerIteration(iterations: iterations) {
        counter += 1
        pendingFutureChain(counter)
    }
    met =
        report(
            "10 maps on pending promise, complete, inline", ours: pending, baseline: baseline,
            baselineName: "10 composed closures + observer closure", unit: .nanoseconds, target: 5) && met
    // With the callback sent to a queue, the baseline sends its observer to the same queue: both pay the hop.
    let queue = DispatchQueue(label: "bench.callbacks")
    let queuedBaseline = nanosecondsPerIteration(iterations: iterations, draining: queue) {
        counter += 1
        closureChain(counter) { value in queue.async { sink.consume(value) } }
    }
    let queued = nanosecondsPerIteration(iterations: iterations, draining: queue) {
        counter += 1
        futureChain(counter, queue: queue)
    }
    met =
        report(
            "promise + 10 maps + onSuccess(on: queue)", ours: queued, baseline: queuedBaseline,
            baselineName: "10 composed closures + observer sent to the same queue", unit: .nanoseconds, target: 8)
        && met
    return met
}

private func awaitBenchmarks(_ options: BenchmarkOptions) async throws -> Bool {
    let iterations = options.iterations(100_000)
    var met = true

    let completed = Future(value: 1)
    let completedBaseline = try await nanosecondsPerIteration(iterations: iterations) {
        let value: Int = try await withCheckedThrowingContinuation { $0.resume(returning: 1) }
        sink.consume(value)
    }
    let completedOurs = try await nanosecondsPerIteration(iterations: iterations) {
        sink.consume(try await completed.value)
    }
    met =
        report(
            "await value of a completed future", ours: completedOurs, baseline: completedBaseline,
            baselineName: "withCheckedThrowingContinuation resumed at once", unit: .nanoseconds, target: 1.5)
        && met

    let queue = DispatchQueue(label: "bench.completer")
    let laterBaseline = try await nanosecondsPerIteration(iterations: iterations / 4) {
        let value: Int = try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(returning: 1) }
        }
        sink.consume(value)
    }
    let laterOurs = try await nanosecondsPerIteration(iterations: iterations / 4) {
        let promise = Promise<Int>()
        queue.async { promise.succeed(1) }
        sink.consume(try await promise.future.value)
    }
    met =
        report(
            "await value of a future completed later", ours: laterOurs, baseline: laterBaseline,
            baselineName: "withCheckedThrowingContinuation resumed from a queue", unit: .nanoseconds, target: 1.2)
        && met
    return met
}
