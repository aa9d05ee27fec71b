import Dispatch
import Testing

@testable import CRUDKit

@Suite struct LockedTests {
    @Test func guardsConcurrentIncrements() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 10_000) { _ in
            counter.withLock { $0 += 1 }
        }
        #expect(counter.withLock { $0 } == 10_000)
    }

    @Test func returnsTheBodysResultAndRethrows() throws {
        struct Boom: Error {}
        let box = Locked([1, 2])
        #expect(box.withLock { $0.count } == 2)
        #expect(throws: Boom.self) { try box.withLock { _ in throw Boom() } }
    }
}
