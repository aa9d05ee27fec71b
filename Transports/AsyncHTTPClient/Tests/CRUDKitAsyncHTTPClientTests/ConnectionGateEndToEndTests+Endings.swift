#if os(Linux)
import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Glibc
import Synchronization
import Testing

@testable import CRUDKitAsyncHTTPClient

// MARK: - Every way an answer ends gives its place back

extension ConnectionGateEndToEndTests {
    /// Each hostile answer alone, one place per host: the place comes back, and the next request completes.
    @Test func everyWayAnAnswerEndsGivesItsPlaceBackOneByOne() async throws {
        let server = try Self.server(Self.hostile)
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(
            configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 0.3, maximumResponseSize: 1000))
        for path in Self.hostilePaths {
            for method in [HTTPMethod.get, .head] {
                let request = HTTPRequest(method: method, url: URL(string: "\(server.url)\(path)")!)
                let outcome = await Self.within(10, "\(method) \(path)") { await Self.send(transport, request) }
                #expect(outcome.map(Self.isAnswerOrCRUDError) == true, "\(method) \(path): \(outcome ?? "hung")")
                // A complete HEAD answer on a connection the server then closes or keeps without reading: the next
                // request may meet that connection (the server's doing, not the gate's; see the probe below).
                let poisoned = method == .head && (path == "/close" || path == "/stall")
                await Self.checkGateIsFree(transport, server.url, "\(method) \(path)", afterMayFail: poisoned)
            }
        }
        try await transport.shutdown()
    }

    /// Every hostile answer at once, three of each, over one and over two places: waiters behind stalled answers
    /// end by their own idle time, and nothing is kept afterwards.
    @Test(arguments: [1, 2]) func everyWayAnAnswerEndsGivesItsPlaceBackAllAtOnce(_ places: Int) async throws {
        let server = try Self.server(Self.hostile)
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(
            configuration: .init(maximumConnectionsPerHost: places, idleTimeout: 0.3, maximumResponseSize: 1000))
        let base = server.url
        let outcomes = await Self.within(30, "every hostile answer at once") {
            await withTaskGroup(of: String.self) { group in
                for round in 0..<3 {
                    for path in Self.hostilePaths {
                        let method: HTTPMethod = round == 2 ? .head : .get
                        let request = HTTPRequest(method: method, url: URL(string: "\(base)\(path)")!)
                        group.addTask { "\(path): \(await Self.send(transport, request))" }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        for outcome in outcomes ?? [] {
            #expect(Self.isAnswerOrCRUDError(outcome), "\(outcome)")
        }
        #expect(outcomes?.count == 3 * Self.hostilePaths.count)
        await Self.checkGateIsFree(transport, server.url, "\(places) places")
        try await transport.shutdown()
    }
}

// MARK: - Redirects

extension ConnectionGateEndToEndTests {
    /// Chains of redirects to the same host with one place: each hop gives its place back before the next waits
    /// for one, so no chain deadlocks on the place it holds.
    @Test func redirectChainsToTheSameHostWithOnePlaceAllEnd() async throws {
        let server = try Self.server(Self.hostile)
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(
            configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 10))
        let base = server.url
        let outcomes = await Self.within(30, "redirect chains") {
            await withTaskGroup(of: String.self) { group in
                for _ in 0..<12 {
                    group.addTask { await Self.send(transport, HTTPRequest(url: URL(string: "\(base)/hop/6")!)) }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        #expect(outcomes == Array(repeating: "status 200, 2 bytes", count: 12))
        await Self.checkGateIsFree(transport, base, "redirect chains")
        try await transport.shutdown()
    }

    /// Two servers redirecting to each other (two gate keys), one place each, many chains at once: all end.
    @Test func redirectsBetweenTwoHostsWithOnePlaceEachAllEnd() async throws {
        let portA = Port()
        let portB = Port()
        let bounce: @Sendable (Port) -> @Sendable (String, Int, Writer) -> Bool = { other in
            { path, _, connection in
                usleep(2_000)
                if path.hasPrefix("/x/"), let left = Int(path.dropFirst(3)), left > 0 {
                    return connection.send(
                        Self.answer(
                            307, "", "Location: http://127.0.0.1:\(other.port)/x/\(left - 1)\r\n")
                    )
                }
                return connection.send(Self.answer())
            }
        }
        let serverA = try Self.server(bounce(portB))
        defer { serverA.stop() }
        let serverB = try Self.server(bounce(portA))
        defer { serverB.stop() }
        portA.set(serverA.port)
        portB.set(serverB.port)
        let transport = AsyncHTTPClientTransport(
            configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 10))
        let base = serverA.url
        let outcomes = await Self.within(30, "ping-pong chains") {
            await withTaskGroup(of: String.self) { group in
                for _ in 0..<10 {
                    group.addTask { await Self.send(transport, HTTPRequest(url: URL(string: "\(base)/x/7")!)) }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        #expect(outcomes == Array(repeating: "status 200, 2 bytes", count: 10))
        await Self.checkGateIsFree(transport, serverA.url, "host A")
        await Self.checkGateIsFree(transport, serverB.url, "host B")
        try await transport.shutdown()
    }
}

// MARK: - Cancellation, idle time and deadline at every stage

extension ConnectionGateEndToEndTests {
    /// 200 requests over two places, each cancelled after a different number of yields (before the gate, while
    /// waiting, right after being handed a place, during the body, which odd requests dribble): each ends with its
    /// answer or `cancelled`, and nothing is kept.
    @Test func cancellationAtEveryStageEndsAsCancelledAndKeepsNoPlace() async throws {
        let server = try Self.server { path, _, connection in
            usleep(1_000)
            let body = path == "/ok" ? "ok" : path
            guard (Int(path.dropFirst(2)) ?? 0) % 2 == 1 else { return connection.send(Self.answer(200, body)) }
            // Odd requests dribble their body, so that some cancellations land in the middle of it.
            connection.send("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            for character in body {
                usleep(300)
                if !connection.send(String(character)) { return false }
            }
            return true
        }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 2, idleTimeout: 30))
        let base = server.url
        let outcomes = await Self.within(40, "cancelled requests") {
            await withTaskGroup(of: String.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let request = Task {
                            await Self.send(transport, HTTPRequest(url: URL(string: "\(base)/c\(index)")!))
                        }
                        for _ in 0..<(index * 7 % 23) { await Task.yield() }
                        request.cancel()
                        return "\(index) \(await request.value)"
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        for outcome in outcomes ?? [] {
            let parts = outcome.split(separator: " ", maxSplits: 1)
            let expected = "status 200, \("/c\(parts[0])".utf8.count) bytes"
            #expect(parts[1] == "cancelled" || String(parts[1]) == expected, "\(outcome)")
        }
        #expect(outcomes?.count == 200)
        await Self.checkGateIsFree(transport, base, "cancellations")
        try await transport.shutdown()
    }

    /// Idle times and deadlines of 1–50 ms racing the hand-over of places (the watchdog firing as a waiter is
    /// resumed): each ends with its answer or its own limit, named as it was set, and nothing is kept.
    @Test(arguments: [1, 2]) func tinyLimitsRacingTheHandOverEndByTheirOwnLimit(_ places: Int) async throws {
        let server = try Self.server { path, _, connection in
            usleep(500)
            return connection.send(Self.answer(200, "ok"))
        }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(
            configuration: .init(maximumConnectionsPerHost: places, idleTimeout: 30))
        let base = server.url
        let limits: [TimeInterval] = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05]
        for round in 0..<8 {
            let outcomes = await Self.within(30, "round \(round)") {
                await withTaskGroup(of: (String, String).self) { group in
                    for index in 0..<150 {
                        let limit = limits[(index + round) % limits.count]
                        let byDeadline = (index / limits.count) % 2 == 1
                        var request = HTTPRequest(url: URL(string: "\(base)/t\(index)")!)
                        if byDeadline { request.deadline = limit } else { request.timeout = limit }
                        let expected = byDeadline ? "timedOut(deadline(\(limit)))" : "timedOut(idle(\(limit)))"
                        group.addTask { [request] in (expected, await Self.send(transport, request)) }
                    }
                    return await group.reduce(into: [(String, String)]()) { $0.append($1) }
                }
            }
            for (expected, outcome) in outcomes ?? [] {
                #expect(outcome == expected || outcome == "status 200, 2 bytes", "round \(round): \(outcome)")
            }
            #expect(outcomes?.count == 150)
            await Self.checkGateIsFree(transport, base, "round \(round)")
        }
        try await transport.shutdown()
    }

    /// 200 requests over two places mixing fast, slow, failing and cut-short answers all end; a request sent while
    /// they keep both places busy still ends at its own deadline, promptly.
    @Test func twoHundredMixedRequestsAllEndAndALateWaitersDeadlineHolds() async throws {
        let server = try Self.server(Self.hostile)
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 2, idleTimeout: 30))
        let base = server.url
        let host = try #require(AsyncHTTPClientTransport.gateKey(for: base))
        let gate = try #require(transport.gate)
        let paths = ["/ok", "/slow", "/error", "/close", "/slow", "/redirect"]
        let crowd = Task {
            await withTaskGroup(of: String.self) { group in
                for index in 0..<200 {
                    let url = URL(string: "\(base)\(paths[index % paths.count])")!
                    group.addTask { await Self.send(transport, HTTPRequest(url: url)) }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        await ConnectionGateTests.eventually { gate.counts(host).waiting >= 50 }
        let clock = ContinuousClock()
        let started = clock.now
        let late = await Self.within(10, "the late waiter") {
            await Self.send(transport, HTTPRequest(url: URL(string: "\(base)/late")!, deadline: 0.3))
        }
        let elapsed = clock.now - started
        #expect(late == "timedOut(deadline(0.3))" || late == "status 200, 2 bytes", "\(late ?? "hung")")
        // Busy loops (this crowd, and the rest of the suite) have made one exchange 2.8 s late; the crowd behind it
        // takes far longer than 5 s.
        #expect(elapsed < .seconds(5), "the late waiter took \(elapsed)")
        let outcomes = await Self.within(40, "the 200 requests") { await crowd.value }
        #expect(outcomes?.count == 200)
        for outcome in outcomes ?? [] {
            #expect(
                outcome == "status 200, 2 bytes" || outcome == "status 500, 6 bytes" || outcome.hasPrefix("transport("),
                "\(outcome)")
        }
        await Self.checkGateIsFree(transport, base, "200 mixed")
        try await transport.shutdown()
    }

    /// A hundred requests waiting behind one silent answer, all cancelled at once: each ends as `cancelled`, the
    /// silent answer keeps its place, and once it is cancelled nothing is kept.
    @Test func cancellingAHundredWaitersAtOnce() async throws {
        let server = try Self.server(Self.hostile)
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 30))
        let base = server.url
        let host = try #require(AsyncHTTPClientTransport.gateKey(for: base))
        let gate = try #require(transport.gate)
        let holder = Task { await Self.send(transport, HTTPRequest(url: URL(string: "\(base)/silent")!)) }
        await ConnectionGateTests.eventually { gate.counts(host).inFlight == 1 }
        let waiters = (0..<100).map { index in
            Task { await Self.send(transport, HTTPRequest(url: URL(string: "\(base)/w\(index)")!)) }
        }
        await ConnectionGateTests.eventually { gate.counts(host).waiting == 100 }
        for waiter in waiters { waiter.cancel() }
        let outcomes = await Self.within(10, "the cancelled waiters") {
            var outcomes: [String] = []
            for waiter in waiters { outcomes.append(await waiter.value) }
            return outcomes
        }
        #expect(outcomes == Array(repeating: "cancelled", count: 100))
        #expect(gate.counts(host) == (1, 0))
        holder.cancel()
        #expect(await Self.within(10, "the silent answer") { await holder.value } == "cancelled")
        await Self.checkGateIsFree(transport, base, "cancelled waiters")
        try await transport.shutdown()
    }

    /// Shutting the transport down while requests wait at the gate: every request ends (as a `CRUDError`) instead
    /// of waiting for a place no answer will give back, and nothing is kept.
    @Test func shuttingDownWhileRequestsWaitEndsThemAll() async throws {
        let server = try Self.server(Self.hostile)
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 30))
        let base = server.url
        let host = try #require(AsyncHTTPClientTransport.gateKey(for: base))
        let gate = try #require(transport.gate)
        let holder = Task { await Self.send(transport, HTTPRequest(url: URL(string: "\(base)/silent")!)) }
        await ConnectionGateTests.eventually { gate.counts(host).inFlight == 1 }
        let requests =
            [holder]
            + (0..<20).map { _ in Task { await Self.send(transport, HTTPRequest(url: URL(string: "\(base)/w")!)) } }
        await ConnectionGateTests.eventually { gate.counts(host) == (1, 20) }
        let shutDown = await Self.within(10, "the shutdown") { (try? await transport.shutdown()) != nil }
        #expect(shutDown == true)
        let outcomes = await Self.within(10, "the requests after the shutdown") {
            var outcomes: [String] = []
            for request in requests { outcomes.append(await request.value) }
            return outcomes
        }
        #expect(outcomes?.count == 21)
        for outcome in outcomes ?? [] {
            #expect(Self.isAnswerOrCRUDError(outcome) && !outcome.hasPrefix("status"), "\(outcome)")
        }
        #expect(gate.isIdle, "left \(gate.counts(host))")
        let late = await Self.within(10, "a request after the shutdown") {
            await Self.send(transport, HTTPRequest(url: URL(string: "\(base)/ok")!))
        }
        #expect(late.map { Self.isAnswerOrCRUDError($0) && !$0.hasPrefix("status") } == true, "\(late ?? "hung")")
        #expect(gate.isIdle)
    }
}
#endif
