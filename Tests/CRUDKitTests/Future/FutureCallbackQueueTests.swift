import Dispatch
import Testing

@testable import CRUDKit

@Suite(.serialized) struct FutureCallbackQueueTests {
    let key = DispatchSpecificKey<String>()

    /// A serial queue that answers `DispatchQueue.getSpecific(key:)` with its label.
    func queue(_ label: String) -> DispatchQueue {
        let queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: label)
        return queue
    }

    /// The label of the queue a callback of `future` registered with `on:` runs on.
    func label(of future: Future<Int>, on queue: DispatchQueue?) async -> String? {
        await withCheckedContinuation { continuation in
            future.onComplete(on: queue) { [key] _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key))
            }
        }
    }

    @Test func aCallbackRunsOnTheQueueItNames() async {
        let promise = Promise<Int>(callbackQueue: queue("made-with"))
        let explicit = queue("explicit")
        promise.succeed(1)
        #expect(await label(of: promise.future, on: explicit) == "explicit")
        #expect(await label(of: promise.future, on: nil) == "made-with")
    }

    @Test func withoutAQueueCallbacksRunOnTheProgramWideDefault() async {
        let previous = Future.defaultCallbackQueue
        defer { Future.defaultCallbackQueue = previous }
        Future.defaultCallbackQueue = queue("default")
        #expect(await label(of: Future(value: 1), on: nil) == "default")
        let pending = Promise<Int>()
        let observed = Task { await label(of: pending.future, on: nil) }
        pending.succeed(2)
        #expect(await observed.value == "default")
    }

    @Test func theBuiltInDefaultIsASerialQueueThatNeedsNoMainLoop() async {
        // This test process runs no main loop; a callback still runs, and never on the main thread.
        let ranOnMain = await withCheckedContinuation { continuation in
            Future(value: 1).onComplete(on: nil) { _ in continuation.resume(returning: Thread.isMainThreadSafe) }
        }
        #expect(!ranOnMain)
    }

    @Test func callbacksRegisteredFromManyThreadsAfterCompletionAllRunOnTheirQueue() async {
        let target = queue("many")
        let future = Future(value: 1)
        let count = 200
        let labels = Recorder<String?>()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for _ in 0..<count { group.enter() }
            DispatchQueue.concurrentPerform(iterations: count) { [key] _ in
                future.onSuccess(on: target) { _ in
                    labels.record(DispatchQueue.getSpecific(key: key))
                    group.leave()
                }
            }
            group.notify(queue: .global()) { done.resume() }
        }
        #expect(labels.elements.count == count)
        #expect(labels.elements.allSatisfy { $0 == "many" })
    }
}

/// Whether the current thread is the main thread, without Foundation's `Thread`.
private enum Thread {
    static var isMainThreadSafe: Bool {
        DispatchQueue.getSpecific(key: mainKey) == true
    }
}

private let mainKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()
