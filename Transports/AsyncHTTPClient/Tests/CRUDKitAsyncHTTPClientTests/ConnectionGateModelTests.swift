import AsyncHTTPClient
import CRUDKit
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import CRUDKitAsyncHTTPClient

/// The gate's tickets, tombstones and compaction against a model, under concurrency and at scale. The
/// promises under attack: every waiter resumed exactly once (a second resume traps), waiters still waiting keep their
/// order, nothing is kept once the last answer ended, and giving up thousands of waits costs O(n) in all.
@Suite(.timeLimit(.minutes(2))) struct ConnectionGateModelTests {
    /// A reproducible source of numbers (SplitMix64).
    struct Numbers {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    /// How each waiter ended: `nil` still waiting, "place" or "refused"; a second ending is recorded as "twice".
    final class Endings: Sendable {
        let box = NIOLockedValueBox<[Int: String]>([:])
        func end(_ index: Int, _ how: String) {
            box.withLockedValue { $0[index] = $0[index] == nil ? how : "twice" }
        }
        var all: [Int: String] { box.withLockedValue { $0 } }
    }

    /// Holds: random arrivals, give-ups (of waiting, not-yet-waiting and already-placed tickets) and endings, with a
    /// limit of 1 to 3, checked step by step against a model queue: the right waiter gets each freed place, counts
    /// match, nobody ends twice, and the gate keeps nothing at the end. Long runs of give-ups cross the compaction
    /// threshold (over 64 tickets, most of them given up) many times.
    @Test(arguments: [1, 2, 3]) func theGateFollowsAModelQueue(_ limit: Int) async throws {
        let gate = ConnectionGate(limit: limit)
        let host = "model:80"
        let endings = Endings()
        var numbers = Numbers(state: UInt64(limit) * 7919)
        var tickets: [UInt64] = []
        var tasks: [Task<Void, Never>] = []
        var model: [Int] = []  // the waiters still waiting, oldest first
        var inFlight = 0
        var ended: [Int: String] = [:]
        func settle(_ step: Int, _ what: String) async {
            await ConnectionGateTests.eventually {
                endings.all == ended && gate.counts(host) == (inFlight, model.count)
            }
            #expect(endings.all == ended, "step \(step) (\(what)): endings differ from the model")
            #expect(gate.counts(host) == (inFlight, model.count), "step \(step) (\(what))")
        }
        for step in 0..<3_000 {
            let phase = (step / 300) % 2  // arrivals outnumber give-ups, then the other way round
            let roll = numbers.next(100)
            if roll < (phase == 0 ? 55 : 20) {
                if gate.enter(host) {
                    #expect(model.isEmpty, "step \(step): a newcomer entered past \(model.count) waiters")
                    inFlight += 1
                    continue
                }
                let index = tickets.count
                let ticket = gate.ticket()
                tickets.append(ticket)
                tasks.append(
                    Task {
                        do {
                            _ = try await gate.wait(host, ticket: ticket)
                            endings.end(index, "place")
                        } catch {
                            endings.end(index, "refused")
                        }
                    })
                model.append(index)
                await settle(step, "arrival")
            } else if roll < 90 {
                guard !model.isEmpty else { continue }
                let index = model.remove(at: numbers.next(model.count))
                gate.abandon(tickets[index], of: host, because: CancellationError())
                ended[index] = "refused"
                await settle(step, "give-up")
                // A second give-up of the same ticket, and one of a ticket that already ended, change nothing.
                gate.abandon(tickets[index], of: host, because: CancellationError())
                if let done = ended.keys.randomElement() {
                    gate.abandon(tickets[done], of: host, because: CancellationError())
                }
            } else if inFlight > 0 {
                gate.leave(host, loop: nil)
                if model.isEmpty {
                    inFlight -= 1
                } else {
                    ended[model.removeFirst()] = "place"
                }
                await settle(step, "ending")
            }
        }
        for index in model { gate.abandon(tickets[index], of: host, because: CancellationError()) }
        for index in model { ended[index] = "refused" }
        model = []
        for _ in 0..<inFlight { gate.leave(host, loop: nil) }
        inFlight = 0
        for task in tasks { await task.value }
        #expect(endings.all == ended)
        #expect(gate.isIdle, "the gate keeps something after every answer ended")
    }

    /// Holds: 2,000 requests at once through a gate of 3 places, a fifth of them cancelled at random moments (before
    /// they wait, while waiting, just as a place is handed over), each one that got a place giving it back. Every
    /// request ends (none is stranded by a lost place), none twice, and the gate ends idle.
    @Test func twoThousandRacingRequestsWithRandomCancellationsAllEnd() async throws {
        let gate = ConnectionGate(limit: 3)
        let host = "race:80"
        let endings = Endings()
        let count = 2_000
        var tasks: [Task<Void, Never>] = []
        for index in 0..<count {
            tasks.append(
                Task {
                    if gate.enter(host) {
                        await Task.yield()
                        gate.leave(host, loop: nil)
                        endings.end(index, "place")
                        return
                    }
                    do {
                        _ = try await gate.wait(host, ticket: gate.ticket())
                        await Task.yield()
                        gate.leave(host, loop: nil)
                        endings.end(index, "place")
                    } catch {
                        endings.end(index, "refused")
                    }
                })
            if index % 5 == 4 {
                let victim = tasks[Int.random(in: 0...index)]
                Task { victim.cancel() }
            }
        }
        await ConnectionGateTests.eventually { endings.all.count == count }
        let all = endings.all
        #expect(all.count == count, "\(count - all.count) requests never ended: a place was lost")
        #expect(!all.values.contains("twice"))
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        #expect(gate.isIdle, "counts left: \(gate.counts(host))")
    }

    /// Holds: 20,000 waiters that stay while 100,000 more come and give up, oldest of the newcomers first, then
    /// newest first: O(1) per give-up (amortized), so well within seconds, and the 20,000 keep their order.
    @Test func givingUpAroundTwentyThousandWaitersCostsLinearTime() async throws {
        let gate = ConnectionGate(limit: 1)
        let host = "scale:80"
        #expect(gate.enter(host))
        let order = NIOLockedValueBox<[Int]>([])
        let staying = 20_000
        var waits: [Task<Void, any Error>] = []
        for index in 0..<staying {
            let ticket = gate.ticket()
            waits.append(
                Task {
                    _ = try await gate.wait(host, ticket: ticket)
                    order.withLockedValue { $0.append(index) }
                    gate.leave(host, loop: nil)
                })
            await ConnectionGateTests.eventually { gate.counts(host).waiting == index + 1 }
        }
        let clock = ContinuousClock()
        let started = clock.now
        // Tickets given out and then given up without a task each: the wait refuses them at once when it starts,
        // and the ones given up while waiting go through the same path as a cancelled request.
        var passing: [(UInt64, Task<Void, any Error>)] = []
        for round in 0..<10 {
            for _ in 0..<5_000 {
                let ticket = gate.ticket()
                passing.append((ticket, Task { _ = try await gate.wait(host, ticket: ticket) }))
            }
            await ConnectionGateTests.eventually { gate.counts(host).waiting == staying + passing.count }
            let ordered = round % 2 == 0 ? passing : passing.reversed()
            for (ticket, _) in ordered { gate.abandon(ticket, of: host, because: CancellationError()) }
            for (_, task) in passing { _ = try? await task.value }
            passing = []
        }
        let elapsed = clock.now - started
        #expect(gate.counts(host) == (1, staying))
        #expect(elapsed < .seconds(30), "100,000 give-ups around 20,000 waiters took \(elapsed)")
        gate.leave(host, loop: nil)
        for wait in waits { try await wait.value }
        #expect(order.withLockedValue { $0 } == Array(0..<staying), "the waiters that stayed lost their order")
        #expect(gate.isIdle)
    }
}
