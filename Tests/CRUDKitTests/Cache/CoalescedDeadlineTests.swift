@_spi(TransportKit) import CRUDKitCore
import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// Each caller's deadline on a shared read: it holds even when its timer is late (an answer or a failure after it is
/// that caller's timeout), the others keep waiting, a deadline that is not finite is none (as for a read not
/// shared), nothing is kept once nothing is in flight, and no figure traps.
@Suite(.timeLimit(.minutes(TestEnvironment.minutes(2)))) struct CoalescedDeadlineTests {
    private static let key = RequestCoalescer.Key(HTTPRequest(method: .get, url: testBase))!

    /// A coalescer on a clock the test moves.
    private static func moved() -> (RequestCoalescer, Locked<ContinuousClock.Instant>) {
        let clock = Locked(ContinuousClock.now)
        return (RequestCoalescer(now: { clock.withLock { $0 } }), clock)
    }

    private static func status(_ body: @Sendable () async throws -> HTTPResponse) async -> String {
        do {
            return "\(try await body().status)"
        } catch {
            return "\(error)"
        }
    }

    private struct Boom: Error {}

    // MARK: - Figures

    /// Every figure a deadline can take: none traps; one already passed (zero, negative, tiny) is the caller's
    /// timeout, one beyond a century is none at all, and so is one that is not finite (infinite or NaN), as
    /// `HTTPRequest.deadline`, the transports and the redirect stage read it: a shared read must not end at once
    /// with a timeout where the same read not shared is answered.
    @Test(arguments: [
        (0.0, false), (-0.0, false), (-1.0, false), (1e-9, false), (1e-300, false), (-1e300, false),
        (-Double.greatestFiniteMagnitude, false), (3e9, true), (3_155_759_999.0, true), (3_155_760_000.0, true),
        (9.2e9, true), (9.3e9, true), (1e300, true), (Double.greatestFiniteMagnitude, true), (Double.infinity, true),
        (-Double.infinity, true), (Double.nan, true),
    ])
    func aDeadlineOfAnyFigureNeverTraps(seconds: Double, answered: Bool) async throws {
        let (coalescer, clock) = Self.moved()
        let gate = Promise<Void>()
        let ended = Locked(false)
        let caller = Task {
            defer { ended.withLock { $0 = true } }
            return try await coalescer.response(for: Self.key, deadline: seconds) {
                try await gate.future.value
                return HTTPResponse(status: 200)
            }
        }
        await waitUntil("the caller waiting or gone") { coalescer.waitingCallers == 1 || ended.withLock { $0 } }
        clock.withLock { $0 += .seconds(1) }
        _ = gate.succeed(())
        let outcome = await Self.status { try await caller.value }
        #expect(outcome == (answered ? "200" : "\(CRUDError.timedOut(.deadline(seconds)))"), "deadline \(seconds)")
        await waitUntil("nothing kept") { coalescer.flightCount == 0 && coalescer.waitingCallers == 0 }
    }

    // MARK: - Races

    /// The timer and the answer race thousands of times (tiny deadlines against an exchange that answers at once):
    /// each caller is resumed once (a second resume traps), a caller with no deadline always gets the answer, and
    /// nothing is left in the table.
    @Test func aTimerRacingTheAnswerResumesEachCallerOnce() async throws {
        let coalescer = RequestCoalescer()
        let exchange: @Sendable () async throws -> HTTPResponse = {
            await Task.yield()
            return HTTPResponse(status: 200)
        }
        let timeout = { (seconds: Double) in "\(CRUDError.timedOut(.deadline(seconds)))" }
        for _ in 0..<2_000 {
            let deadlines: [Double?] = [0, 1e-9, 1e-7, 1e-6, nil]
            let callers = deadlines.map { deadline in
                Task {
                    await Self.status {
                        try await coalescer.response(for: Self.key, deadline: deadline, operation: exchange)
                    }
                }
            }
            for (deadline, caller) in zip(deadlines, callers) {
                let outcome = await caller.value
                if let deadline {
                    #expect(outcome == "200" || outcome == timeout(deadline))
                } else {
                    #expect(outcome == "200")
                }
            }
        }
        #expect(coalescer.flightCount == 0)
        #expect(coalescer.waitingCallers == 0)
    }

    /// A caller whose timer runs (a tiny deadline) leaves, the exchange goes on for the caller with none, which
    /// gets the answer; the exchange is not cancelled.
    @Test func aCallerWhoseTimerRanLeavesWhileTheOtherWaits() async throws {
        let coalescer = RequestCoalescer()
        let gate = Promise<Void>()
        let cancelled = Locked(false)
        let (started, signal) = AsyncStream.makeStream(of: Void.self)
        let exchange: @Sendable () async throws -> HTTPResponse = {
            signal.yield()
            try await gate.future.value
            cancelled.withLock { $0 = Task.isCancelled }
            return HTTPResponse(status: 200)
        }
        let patient = Task { try await coalescer.response(for: Self.key, operation: exchange) }
        for await _ in started { break }
        let hasty = Task { try await coalescer.response(for: Self.key, deadline: 1e-9, operation: exchange) }
        let error = await crudError { try await hasty.value }
        #expect(error.map { "\($0)" } == "\(CRUDError.timedOut(.deadline(1e-9)))")
        #expect(coalescer.waitingCallers == 1)
        #expect(coalescer.flightCount == 1)
        _ = gate.succeed(())
        #expect(try await patient.value.status == 200)
        #expect(cancelled.withLock { $0 } == false)
        #expect(coalescer.flightCount == 0)
    }

    /// A failure that arrives after a caller's deadline is its timeout; a caller with none gets the failure.
    @Test func aFailureAfterADeadlineIsThatCallersTimeout() async throws {
        let (coalescer, clock) = Self.moved()
        let gate = Promise<Void>()
        let (started, signal) = AsyncStream.makeStream(of: Void.self)
        let exchange: @Sendable () async throws -> HTTPResponse = {
            signal.yield()
            try await gate.future.value
            throw Boom()
        }
        let late = Task { try await coalescer.response(for: Self.key, deadline: 3_600, operation: exchange) }
        for await _ in started { break }
        let unbounded = Task { try await coalescer.response(for: Self.key, operation: exchange) }
        await waitUntil("two callers waiting") { coalescer.waitingCallers == 2 }
        clock.withLock { $0 += .seconds(3_600) }  // exactly on the deadline: passed
        _ = gate.succeed(())
        #expect(await Self.status { try await late.value } == "\(CRUDError.timedOut(.deadline(3_600)))")
        #expect(await Self.status { try await unbounded.value } == "\(Boom())")
        #expect(coalescer.flightCount == 0)
    }

    /// After a write detaches an exchange, its late caller still times out by its deadline, a caller of the new
    /// exchange is held to its own, and nothing is kept.
    @Test func aDetachedExchangeStillHoldsItsCallersDeadlines() async throws {
        let (coalescer, clock) = Self.moved()
        let first = Promise<Void>()
        let second = Promise<Void>()
        let runs = Locked(0)
        let exchange: @Sendable () async throws -> HTTPResponse = {
            let run = runs.withLock {
                $0 += 1; return $0
            }
            try await (run == 1 ? first : second).future.value
            return HTTPResponse(status: 200 + run)
        }
        let old = Task { try await coalescer.response(for: Self.key, deadline: 3_600, operation: exchange) }
        await waitUntil("the first exchange running") { runs.withLock { $0 } == 1 }
        coalescer.detach { _ in true }
        let fresh = Task { try await coalescer.response(for: Self.key, deadline: 7_200, operation: exchange) }
        await waitUntil("the second exchange running") { runs.withLock { $0 } == 2 }
        #expect(coalescer.flightCount == 2)
        clock.withLock { $0 += .seconds(3_601) }
        _ = first.succeed(())
        #expect(await Self.status { try await old.value } == "\(CRUDError.timedOut(.deadline(3_600)))")
        _ = second.succeed(())
        #expect(await Self.status { try await fresh.value } == "202")
        #expect(coalescer.flightCount == 0)
        #expect(coalescer.waitingCallers == 0)
    }

    /// A thousand callers with mixed deadlines share one exchange: those whose deadline passed (or was zero) time
    /// out, the others get the answer.
    @Test func aThousandCallersWithMixedDeadlines() async throws {
        let (coalescer, clock) = Self.moved()
        let gate = Promise<Void>()
        let runs = Locked(0)
        let zeroesDone = Locked(0)
        let exchange: @Sendable () async throws -> HTTPResponse = {
            runs.withLock { $0 += 1 }
            try await gate.future.value
            return HTTPResponse(status: 200)
        }
        let deadlines: [Double?] = (0..<1_000).map { [nil, 100, 200, 0][$0 % 4] }
        let callers = deadlines.map { deadline in
            Task {
                defer { if deadline == 0 { zeroesDone.withLock { $0 += 1 } } }
                return await Self.status {
                    try await coalescer.response(for: Self.key, deadline: deadline, operation: exchange)
                }
            }
        }
        await waitUntil("750 waiting, 250 gone") {
            coalescer.waitingCallers == 750 && zeroesDone.withLock { $0 } == 250
        }
        #expect(coalescer.flightCount == 1)
        clock.withLock { $0 += .seconds(150) }
        _ = gate.succeed(())
        var outcomes: [String: Int] = [:]
        for caller in callers { outcomes[await caller.value, default: 0] += 1 }
        #expect(outcomes["200"] == 500)
        #expect(outcomes["\(CRUDError.timedOut(.deadline(100)))"] == 250)
        #expect(outcomes["\(CRUDError.timedOut(.deadline(0)))"] == 250)
        #expect(coalescer.flightCount == 0)
        #expect(coalescer.waitingCallers == 0)
    }

    // MARK: - Through an API

    /// A transport whose deadline timer has not run yet (a busy pool): it answers `/a` with a 302 to `/b` at once,
    /// and `/b` (or any other path) with a 200 once `delay` has passed, whatever the request's deadline.
    private struct LateTimerTransport: Transport {
        let delay: Duration
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            if request.url.path.hasSuffix("/a") {
                return HTTPResponse(status: 302, headers: ["Location": testBase.absoluteString + "/b"])
            }
            try await Task.sleep(for: delay)
            return HTTPResponse(status: 200)
        }
    }

    /// A read through an API whose answer arrives after its deadline, its transport's timer late: a timeout,
    /// shared or not (the coalescing fix holds the shared read to its deadline; the same read not shared must not
    /// come back with the 200 either). One hop and a redirect.
    @Test(arguments: [true, false], ["a", "one"])
    func aReadAnsweredAfterItsDeadlineTimesOutSharedOrNot(shared: Bool, path: String) async throws {
        let api = API(baseURL: testBase, transport: LateTimerTransport(delay: .milliseconds(600))).with {
            $0.deadline = 0.3
            if !shared { $0.middleware.removeAll(named: .coalescing) }
        }
        let outcome = await Self.status { try await api.send(HTTPRequest(url: testBase.appendingPathComponent(path))) }
        #expect(outcome == "\(CRUDError.timedOut(.deadline(0.3)))", "shared \(shared), /\(path)")
        #expect(api.coalescer.flightCount == 0)
    }

    /// End to end over a loopback server with slow redirects (three 302s, 0.5 s each): a deadline of 1.2 s is a
    /// timeout, never the last hop's 200, shared or not.
    @Test(arguments: [true, false])
    func aSlowRedirectChainOverLoopbackTimesOut(shared: Bool) async throws {
        let server = LoopbackServer(synchronousHandler: { request in
            let hops = ["/h1": "/h2", "/h2": "/h3", "/h3": "/ok"]
            guard let next = hops[request.path] else { return .response(HTTPResponse(status: 200)) }
            return .stream(
                LoopbackStream(status: 302, headers: ["Location": next], chunks: [], delay: 0.5, delaysHead: true))
        })
        try server.start()
        defer { server.stop() }
        let api = API(baseURL: server.baseURL).with {
            $0.deadline = 1.2
            if !shared { $0.middleware.removeAll(named: .coalescing) }
        }
        let readers = (0..<3).map { _ in
            Task {
                await Self.status { try await api.send(HTTPRequest(url: server.baseURL.appendingPathComponent("h1"))) }
            }
        }
        for reader in readers {
            #expect(await reader.value == "\(CRUDError.timedOut(.deadline(1.2)))", "shared \(shared)")
        }
        await waitUntil("nothing kept") { api.coalescer.flightCount == 0 && api.coalescer.waitingCallers == 0 }
    }

    /// Over a loopback server and the real transport, a read with a NaN or -infinity deadline ends the same shared
    /// or not (not shared, the transport and the redirect stage read it as none, and the read is answered).
    @Test(arguments: [-Double.infinity, Double.nan])
    func aNonFiniteDeadlineEndsTheSameSharedOrNot(seconds: Double) async throws {
        let server = LoopbackServer(synchronousHandler: { _ in .response(HTTPResponse(status: 200)) })
        try server.start()
        defer { server.stop() }
        var outcomes: [String] = []
        for shared in [true, false] {
            let api = API(baseURL: server.baseURL).with {
                $0.deadline = seconds
                if !shared { $0.middleware.removeAll(named: .coalescing) }
            }
            outcomes.append(await Self.status { try await api.send(HTTPRequest(url: server.baseURL)) })
        }
        #expect(outcomes == ["200", "200"], "deadline \(seconds)")
    }
}
