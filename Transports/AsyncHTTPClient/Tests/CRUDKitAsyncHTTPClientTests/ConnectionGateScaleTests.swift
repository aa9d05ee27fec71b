import AsyncHTTPClient
import CRUDKit
import Foundation
import NIOCore
import Testing

@testable import CRUDKitAsyncHTTPClient

extension MemoryBoundTests {
    /// Thousands of requests waiting at the gate and then abandoned (cancelled, or ended by their idle time or
    /// deadline), as when a burst far past the connections per host is given up. Each abandon used to look its waiter
    /// up from the front of the queue and copy the whole queue to take it out: 30,000 abandons took minutes. Now each
    /// is O(1), and the requests still waiting keep their order.
    @Suite(.timeLimit(.minutes(1))) struct ConnectionGateScaleTests {
        @Test func thirtyThousandWaitersAbandonedNewestFirst() async throws {
            let gate = ConnectionGate(limit: 1)
            #expect(gate.enter("a:80"))
            let count = 30_000
            var tickets: [UInt64] = []
            var waits: [Task<(any EventLoop)?, any Error>] = []
            for _ in 0..<count {
                let ticket = gate.ticket()
                tickets.append(ticket)
                waits.append(Task { try await gate.wait("a:80", ticket: ticket) })
            }
            await ConnectionGateTests.eventually { gate.counts("a:80").waiting == count }

            // Every waiter but three, the newest first: the old queue was searched from the front for each.
            let kept = [0, count / 2, count - 1]
            for index in stride(from: count - 1, through: 0, by: -1) where !kept.contains(index) {
                gate.abandon(tickets[index], of: "a:80", because: CancellationError())
            }
            #expect(gate.counts("a:80") == (1, 3))

            // The three left get the place in the order they came, each handed the loop of the answer that ended.
            let loops = Array(HTTPClient.shared.eventLoopGroup.makeIterator())
            for (turn, index) in kept.enumerated() {
                let loop = loops[turn % loops.count]
                gate.leave("a:80", loop: loop)
                #expect(try await waits[index].value === loop, "waiter \(index)")
            }
            gate.leave("a:80", loop: nil)
            #expect(gate.isIdle)

            var refused = 0
            for (index, wait) in waits.enumerated() where !kept.contains(index) {
                do { _ = try await wait.value } catch is CancellationError { refused += 1 }
            }
            #expect(refused == count - kept.count)
        }
    }
}
