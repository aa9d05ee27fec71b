import Testing

@testable import CRUDKit

/// Completions run at once, nested, up to `CompletionTrampoline.maximumInlineDepth` levels; deeper ones wait for
/// the outermost one and start again at depth 1, so the stack stays bounded whatever the chain's length.
@Suite struct FutureInlineDepthTests {
    /// The nesting depth each of `count` pending `map`s saw when it ran, in chain order.
    private static func depthsOfPendingMaps(_ count: Int) -> [Int] {
        let depths = Locked<[Int]>([])
        let promise = Promise<Int>()
        var tail = promise.future
        for _ in 0..<count {
            tail = tail.map { value in
                depths.withLock { $0.append(CompletionTrampoline.currentDepth) }
                return value + 1
            }
        }
        let outcome = Locked<Int?>(nil)
        tail.onCompleteInline { result in outcome.withLock { $0 = result.success } }
        promise.succeed(0)
        #expect(outcome.withLock { $0 } == count)
        #expect(CompletionTrampoline.currentDepth == 0)
        return depths.withLock { $0 }
    }

    @Test func aShortChainRunsNestedWithoutQueueing() {
        // The promise's completion is depth 1; map n runs inside the completion of the future before it.
        #expect(Self.depthsOfPendingMaps(10) == Array(1...10))
    }

    @Test func aLongChainNeverNestsDeeperThanTheLimit() {
        let limit = CompletionTrampoline.maximumInlineDepth
        let depths = Self.depthsOfPendingMaps(200)
        #expect(depths.count == 200)
        #expect(depths.max() == limit)
        #expect(depths.min() == 1)
        // Inline up to the limit, then each queued completion starts again at depth 1 (inside the drain).
        #expect(Array(depths.prefix(limit)) == Array(1...limit))
        #expect(depths[limit] == 1)
    }

    @Test func callbacksOfOneFutureKeepRegistrationOrderAcrossNestedCompletions() {
        let seen = Locked<[String]>([])
        let promise = Promise<Int>()
        let mapped = promise.future.map { $0 + 1 }
        promise.future.onCompleteInline { _ in seen.withLock { $0.append("first") } }
        mapped.onCompleteInline { _ in seen.withLock { $0.append("mapped") } }
        promise.future.onCompleteInline { _ in seen.withLock { $0.append("second") } }
        promise.succeed(1)
        // The map's completion is nested in the promise's delivery: its observer runs at once, between the
        // promise's own callbacks, which keep their registration order.
        #expect(seen.withLock { $0 } == ["mapped", "first", "second"])
    }
}
