#if os(Linux)
import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Glibc
import Synchronization
import Testing

@testable import CRUDKitAsyncHTTPClient

/// Red-team probes of the `ConnectionGate` (collected answers over plain HTTP kept within the owned client's
/// connections per host), written by a session that had not written it. Each probe drives the real transport against
/// a hostile loopback server and checks what README promises: every request ends (by its answer, its idle time, its
/// deadline or its cancellation, as a `CRUDError`), every place taken is given back (`gate.isIdle` once all ended)
/// and a further request to the same host completes. A probe named `bug…` failed on the code it was written against.
@Suite(.serialized, .timeLimit(.minutes(1))) struct GateRedTeamProbes {
    /// What a probe server saw: the requests per path.
    final class Hits: Sendable {
        private let state = Mutex<(counts: [String: Int], order: [String])>(([:], []))
        /// Counts one request for `path`; the number seen for it before.
        func record(_ path: String) -> Int {
            state.withLock { state in
                state.order.append(path)
                defer { state.counts[path, default: 0] += 1 }
                return state.counts[path, default: 0]
            }
        }
        func count(_ path: String) -> Int { state.withLock { $0.counts[path, default: 0] } }
        /// The paths in the order their requests arrived.
        var order: [String] { state.withLock { $0.order } }
    }

    /// A port set once the server it names is started (for servers redirecting to each other).
    final class Port: Sendable {
        private let value = Mutex(0)
        func set(_ port: Int) { value.withLock { $0 = port } }
        var port: Int { value.withLock { $0 } }
    }

    /// Which of a piece of work and its timer ended first, and the timer to cancel.
    final class Race: Sendable {
        private let state = Mutex<(done: Bool, timer: Task<Void, Never>?)>((false, nil))
        /// `true` for the first caller only.
        func claim() -> Bool {
            state.withLock { state in
                defer { state.done = true }
                return !state.done
            }
        }
        func setTimer(_ timer: Task<Void, Never>) {
            let cancel = state.withLock { state -> Bool in
                state.timer = timer
                return state.done
            }
            if cancel { timer.cancel() }
        }
        func cancelTimer() { state.withLock { $0.timer }?.cancel() }
    }

    /// Writes a route's answer on its connection's thread; to a HEAD request, only the answer's head.
    final class Writer {
        let connection: RedRawConnection
        /// For a HEAD request: the head written so far, until its end; nil once the rest is dropped (or for
        /// another request, whose bytes all go through).
        private var head: String?
        private let isHead: Bool

        init(_ connection: RedRawConnection, head: Bool) {
            self.connection = connection
            self.isHead = head
            self.head = head ? "" : nil
        }

        /// Writes `text` (for a HEAD request, up to the end of the head); false when the peer is gone.
        @discardableResult func send(_ text: String) -> Bool {
            guard isHead else { return connection.send(text) }
            guard let pending = head else { return true }
            let written = pending + text
            guard let end = written.range(of: "\r\n\r\n") else {
                head = written
                return true
            }
            head = nil
            return connection.send(String(written[..<end.upperBound]))
        }

        func waitForClose() { connection.waitForClose() }
    }

    /// A whole answer with `body`.
    static func answer(_ status: Int = 200, _ body: String = "ok", _ extra: String = "") -> String {
        "HTTP/1.1 \(status) X\r\nContent-Length: \(body.utf8.count)\r\n\(extra)\r\n\(body)"
    }

    /// A raw server on 127.0.0.1 whose every request is answered by `route(path, index on the path, connection)`;
    /// `route` returns whether the connection stays open. A HEAD request is answered by the route of its path with
    /// the body left out (the bytes after the head are dropped).
    static func server(
        hits: Hits = Hits(), _ route: @escaping @Sendable (String, Int, Writer) -> Bool
    ) throws -> RedRawServer {
        try RedRawServer { connection, _ in
            while let head = connection.readRequest() {
                let line = head.split(separator: "\r\n").first ?? ""
                let target = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
                let path = String(target.split(separator: "?", omittingEmptySubsequences: false).first ?? "/")
                let index = hits.record(path)
                let keep =
                    line.hasPrefix("HEAD ")
                    ? route(path, index, Writer(connection, head: true))
                    : route(path, index, Writer(connection, head: false))
                if !keep { return }
            }
        }
    }

    /// The hostile endpoints every way an answer can end goes through (the size limit is 1000 bytes).
    static func hostile(_ path: String, _ index: Int, _ connection: Writer) -> Bool {
        switch path {
        case "/ok": return connection.send(answer())
        case "/slow":
            usleep(20_000)
            return connection.send(answer())
        case "/error": return connection.send(answer(500, "broken"))
        case "/close":
            // A body cut short: the server closes after 10 of 100 bytes.
            connection.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
            return false
        case "/big": return connection.send(answer(200, String(repeating: "x", count: 5000)))
        case "/chunkedbig":
            connection.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            for _ in 0..<20 { connection.send("100\r\n" + String(repeating: "y", count: 256) + "\r\n") }
            return connection.send("0\r\n\r\n")
        case "/badgzip": return connection.send(answer(200, "notgzip!!!", "Content-Encoding: gzip\r\n"))
        case "/emptygzip": return connection.send(answer(200, "", "Content-Encoding: gzip\r\n"))
        case "/nocontentgzip": return connection.send("HTTP/1.1 204 No Content\r\nContent-Encoding: gzip\r\n\r\n")
        case "/redirect": return connection.send(answer(302, "", "Location: /ok\r\n"))
        case "/loop": return connection.send(answer(302, "", "Location: /loop\r\n"))
        case "/stall":
            connection.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
            connection.waitForClose()
            return false
        case "/silent":
            connection.waitForClose()
            return false
        case "/early":
            connection.send("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n")
            return connection.send(answer())
        case "/closing": return connection.send(answer(200, "ok", "Connection: close\r\n")) && false
        case "/dribble":
            // Never quiet for long, but slow: 40 bytes, one per 50 ms.
            connection.send("HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n")
            for _ in 0..<40 {
                usleep(50_000)
                if !connection.send("d") { return false }
            }
            return true
        case "/garbage":
            connection.send("NOT HTTP AT ALL\r\n\r\n")
            return false
        default:
            if path.hasPrefix("/hop/"), let left = Int(path.dropFirst(5)), left > 0 {
                return connection.send(answer(302, "", "Location: /hop/\(left - 1)\r\n"))
            }
            return connection.send(answer())
        }
    }

    static let hostilePaths = [
        "/ok", "/slow", "/error", "/close", "/big", "/chunkedbig", "/badgzip", "/emptygzip", "/nocontentgzip",
        "/redirect", "/loop", "/stall", "/silent", "/garbage", "/hop/3", "/early", "/closing",
    ]

    /// Runs `body`, giving up (nil, with an issue naming `what`) after `seconds`: a hang fails the probe instead of
    /// the suite. The abandoned work is cancelled.
    static func within<T: Sendable>(
        _ seconds: Double, _ what: String, _ body: @escaping @Sendable () async -> T
    ) async -> T? {
        let race = Race()
        let result: T? = await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let work = Task {
                let value = await body()
                if race.claim() {
                    race.cancelTimer()
                    continuation.resume(returning: value)
                }
            }
            race.setTimer(
                Task {
                    try? await Task.sleep(for: .seconds(seconds))
                    if race.claim() {
                        work.cancel()
                        continuation.resume(returning: nil)
                    }
                })
        }
        if result == nil { Issue.record("\(what) did not end within \(seconds) s") }
        return result
    }

    /// The outcome of one request in a few words (see `RedTeamProbes.summary`).
    static func send(_ transport: AsyncHTTPClientTransport, _ request: HTTPRequest) async -> String {
        RedTeamProbes.summary(await RedTeamProbes.outcome(transport, request))
    }

    /// Checks that nothing is kept at the gate and that one more request to `url` completes.
    static func checkGateIsFree(
        _ transport: AsyncHTTPClientTransport, _ url: URL, _ context: String, afterMayFail: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let gate = transport.gate
        #expect(gate != nil, sourceLocation: sourceLocation)
        if let gate, let host = AsyncHTTPClientTransport.gateKey(for: url) {
            #expect(gate.isIdle, "\(context): left \(gate.counts(host))", sourceLocation: sourceLocation)
        }
        let after = await within(10, "\(context): the request after") {
            await send(transport, HTTPRequest(url: url.appendingPathComponent("ok"), timeout: 5))
        }
        if afterMayFail {
            #expect(
                after.map(isAnswerOrCRUDError) == true, "\(context): \(after ?? "hung")", sourceLocation: sourceLocation
            )
        } else {
            #expect(after == "status 200, 2 bytes", "\(context)", sourceLocation: sourceLocation)
        }
    }

    /// Whether `outcome` is an answer or a `CRUDError` (never another error).
    static func isAnswerOrCRUDError(_ outcome: String) -> Bool { !outcome.hasPrefix("non-CRUDError") }
}

// MARK: - Every way an answer ends gives its place back

extension GateRedTeamProbes {
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

extension GateRedTeamProbes {
    /// Chains of redirects to the same host with one place: each hop gives its place back before the next waits
    /// for one, so no chain deadlocks on the place it holds.
    @Test func redirectChainsToTheSameHostWithOnePlaceAllEnd() async throws {
        let server = try Self.server(Self.hostile)
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(
            configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 10, maximumRedirects: 10))
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
            configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 10, maximumRedirects: 10))
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

extension GateRedTeamProbes {
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
        #expect(elapsed < .seconds(2), "the late waiter took \(elapsed)")
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

// MARK: - Keys, streamed requests, retries

extension GateRedTeamProbes {
    /// One host spelled several ways (`127.0.0.1`, `localhost`, upper case, an explicit default port) is counted and
    /// given back under the same key each time: all end, nothing is kept under any spelling.
    @Test func oneHostSpelledSeveralWaysKeepsNoPlace() async throws {
        let server = try Self.server(Self.hostile)
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 10))
        let spellings = ["127.0.0.1", "localhost", "LOCALHOST", "LocalHost", "127.000.000.001"]
        let port = server.port
        let outcomes = await Self.within(30, "the spellings") {
            await withTaskGroup(of: String.self) { group in
                for spelling in spellings {
                    for _ in 0..<8 {
                        let url = URL(string: "http://\(spelling):\(port)/slow")!
                        group.addTask { "\(spelling) \(await Self.send(transport, HTTPRequest(url: url)))" }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        #expect(outcomes?.count == spellings.count * 8)
        for outcome in outcomes ?? [] { #expect(Self.isAnswerOrCRUDError(outcome), "\(outcome)") }
        #expect(transport.gate?.isIdle == true)
        #expect(
            AsyncHTTPClientTransport.gateKey(for: URL(string: "http://example.com:80/a")!)
                == AsyncHTTPClientTransport.gateKey(for: URL(string: "http://example.com/a")!))
        await Self.checkGateIsFree(transport, server.url, "spellings")
        try await transport.shutdown()
    }

    /// Streamed requests (an upload over 64 KiB, a download with an observer) hold the one connection while
    /// collected requests wait at the gate or in the pool: all end, nothing is kept.
    @Test func streamedRequestsHoldingThePoolWhileCollectedOnesWait() async throws {
        let server = try Self.server { path, _, connection in
            if path == "/download" {
                usleep(100_000)
                return connection.send(Self.answer(200, String(repeating: "d", count: 200_000)))
            }
            return connection.send(Self.answer())
        }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 10))
        let base = server.url
        let outcomes = await Self.within(30, "streamed and collected") {
            await withTaskGroup(of: String.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        switch index % 4 {
                        case 0:
                            let upload = HTTPRequest(
                                method: .put, url: URL(string: "\(base)/upload")!,
                                body: .data(Data(repeating: 7, count: 100_000)))
                            return await Self.send(transport, upload)
                        case 1:
                            let observer = TransferObserver(download: { _ in })
                            do {
                                let response = try await transport.send(
                                    HTTPRequest(url: URL(string: "\(base)/download")!), observer: observer)
                                return response.body.count == 200_000 ? "status 200, 2 bytes" : "short"
                            } catch { return RedTeamProbes.summary(error) }
                        default:
                            return await Self.send(transport, HTTPRequest(url: URL(string: "\(base)/ok")!))
                        }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        #expect(outcomes == Array(repeating: "status 200, 2 bytes", count: 12))
        await Self.checkGateIsFree(transport, base, "streamed")
        try await transport.shutdown()
    }

    /// A retry waiting out a 503's `Retry-After` holds no place: another request to the host completes meanwhile.
    @Test func aRetryWaitingOutRetryAfterHoldsNoPlace() async throws {
        let hits = Hits()
        let server = try Self.server(hits: hits) { path, index, connection in
            if path == "/retry" && index == 0 {
                return connection.send(Self.answer(503, "", "Retry-After: 2\r\n"))
            }
            return connection.send(Self.answer())
        }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 10))
        let base = server.url
        let host = try #require(AsyncHTTPClientTransport.gateKey(for: base))
        let gate = try #require(transport.gate)
        let policy = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(10), jitter: 0, maxTotalTime: .seconds(20))
        let api = API(
            baseURL: base, transport: transport, middleware: .standard.inserting(RetryMiddleware(policy: policy)))
        let retried = Task { try await api.send(HTTPRequest(url: URL(string: "\(base)/retry")!)).status }
        await ConnectionGateTests.eventually { hits.count("/retry") == 1 && gate.counts(host).inFlight == 0 }
        let clock = ContinuousClock()
        let started = clock.now
        let other = await Self.within(5, "the request beside the retry") {
            await Self.send(transport, HTTPRequest(url: URL(string: "\(base)/ok")!))
        }
        #expect(other == "status 200, 2 bytes")
        #expect(clock.now - started < .seconds(1.5), "it waited for the retry")
        #expect(hits.count("/retry") == 1, "the retry had not been sent yet")
        let status = await Self.within(10, "the retried request") { try? await retried.value }
        #expect(status == 200)
        await Self.checkGateIsFree(transport, base, "retry")
        try await transport.shutdown()
    }
}
// MARK: - The same fault through both transports

extension GateRedTeamProbes {
    /// A request waiting for the one connection to a host, held by a silent or a slowly dribbling answer, ended by its idle time, its
    /// deadline or its cancellation: the same error through both transports, promptly.
    @Test(arguments: ["idle", "deadline", "cancel"], ["/silent", "/dribble"])
    func aWaiterEndsTheSameWayThroughBothTransports(_ ending: String, _ holding: String) async throws {
        var seen: [String] = []
        for name in ["AsyncHTTPClientTransport", "URLSessionTransport"] {
            let hits = Hits()
            let server = try Self.server(hits: hits, Self.hostile)
            defer { server.stop() }
            let configuration = URLSessionTransport.Configuration(maximumConnectionsPerHost: 1, idleTimeout: 30)
            let transport: any Transport =
                name == "URLSessionTransport"
                ? URLSessionTransport(configuration: configuration)
                : AsyncHTTPClientTransport(configuration: configuration)
            let base = server.url
            let holder = Task {
                RedTeamProbes.summary(
                    await RedTeamProbes.outcome(transport, HTTPRequest(url: URL(string: "\(base)\(holding)")!)))
            }
            await ConnectionGateTests.eventually { hits.count(holding) == 1 }
            var request = HTTPRequest(url: URL(string: "\(base)/waiter")!)
            switch ending {
            case "idle": request.timeout = 0.3
            case "deadline": request.deadline = 0.3
            default: break
            }
            let clock = ContinuousClock()
            let started = clock.now
            let waiter = Task { [request] in RedTeamProbes.summary(await RedTeamProbes.outcome(transport, request)) }
            if ending == "cancel" {
                if let ahc = transport as? AsyncHTTPClientTransport, let gate = ahc.gate,
                    let host = AsyncHTTPClientTransport.gateKey(for: base)
                {
                    await ConnectionGateTests.eventually { gate.counts(host).waiting == 1 }
                }
                waiter.cancel()
            }
            let outcome = await Self.within(10, "\(name): the waiter") { await waiter.value }
            #expect(clock.now - started < .seconds(3), "\(name): \(outcome ?? "hung")")
            #expect(hits.count("/waiter") == 0, "\(name): the waiter was not sent")
            seen.append("\(name): \(outcome ?? "hung")")
            holder.cancel()
            _ = await Self.within(10, "\(name): the holder") { await holder.value }
        }
        let expected = ["idle": "timedOut(idle(0.3))", "deadline": "timedOut(deadline(0.3))", "cancel": "cancelled"][
            ending]!
        #expect(
            seen == ["AsyncHTTPClientTransport: \(expected)", "URLSessionTransport: \(expected)"], "\(seen)")
    }
}

// MARK: - Order and throughput

extension GateRedTeamProbes {
    /// Requests that came to the gate one after another are sent in that order once places come free.
    @Test func waitersAreSentInTheOrderTheyCame() async throws {
        let hits = Hits()
        let server = try Self.server(hits: hits) { path, _, connection in
            if path == "/first" { usleep(200_000) }
            return connection.send(Self.answer())
        }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 10))
        let base = server.url
        let host = try #require(AsyncHTTPClientTransport.gateKey(for: base))
        let gate = try #require(transport.gate)
        let first = Task { await Self.send(transport, HTTPRequest(url: URL(string: "\(base)/first")!)) }
        await ConnectionGateTests.eventually { gate.counts(host).inFlight == 1 }
        var waiters: [Task<String, Never>] = []
        for index in 0..<10 {
            waiters.append(Task { await Self.send(transport, HTTPRequest(url: URL(string: "\(base)/w\(index)")!)) })
            await ConnectionGateTests.eventually { gate.counts(host).waiting == index + 1 }
        }
        let sent = waiters
        let outcomes = await Self.within(10, "the waiters") {
            var outcomes = [await first.value]
            for waiter in sent { outcomes.append(await waiter.value) }
            return outcomes
        }
        #expect(outcomes == Array(repeating: "status 200, 2 bytes", count: 11))
        #expect(hits.order == ["/first"] + (0..<10).map { "/w\($0)" })
        await Self.checkGateIsFree(transport, base, "order")
        try await transport.shutdown()
    }
}

// MARK: - Refused connections, bodies resent, many hosts

extension GateRedTeamProbes {
    /// Fifty requests at once to a port nothing listens on, one place: each fails at once with its cause, waiters
    /// included, and nothing is kept.
    @Test func refusedConnectionsWithWaitersAllEndAndKeepNoPlace() async throws {
        let closed = try Self.server { _, _, _ in false }
        let url = closed.url
        closed.stop()
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 10))
        let outcomes = await Self.within(20, "refused requests") {
            await withTaskGroup(of: String.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        await Self.send(transport, HTTPRequest(url: url.appendingPathComponent("r\(index)")))
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        #expect(outcomes == Array(repeating: "transport(cannot connect)", count: 50), "\(outcomes ?? [])")
        #expect(transport.gate?.isIdle == true)
        try await transport.shutdown()
    }

    /// POSTs of a small body (collected) redirected with 307 to the same host, one place: the body is resent on
    /// the next hop, every chain ends, and nothing is kept.
    @Test func smallBodiesResentAcrossRedirectsOnOnePlace() async throws {
        let server = try Self.server { path, _, connection in
            if path == "/post" { return connection.send(Self.answer(307, "", "Location: /landed\r\n")) }
            return connection.send(Self.answer())
        }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 10))
        let base = server.url
        let outcomes = await Self.within(20, "redirected posts") {
            await withTaskGroup(of: String.self) { group in
                for _ in 0..<20 {
                    let request = HTTPRequest(
                        method: .post, url: URL(string: "\(base)/post")!, body: .data(Data(repeating: 1, count: 60_000))
                    )
                    group.addTask { await Self.send(transport, request) }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        #expect(outcomes == Array(repeating: "status 200, 2 bytes", count: 20))
        await Self.checkGateIsFree(transport, base, "posts")
        try await transport.shutdown()
    }

    /// Five hosts with one place each and a hundred requests spread over them, some failing: every host's places
    /// come back (nothing is kept for any host).
    @Test func manyHostsEachGiveTheirPlacesBack() async throws {
        var servers: [RedRawServer] = []
        for _ in 0..<5 { servers.append(try Self.server(Self.hostile)) }
        defer { for server in servers { server.stop() } }
        let transport = AsyncHTTPClientTransport(
            configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 2, maximumResponseSize: 1000))
        let bases = servers.map(\.url)
        let paths = ["/ok", "/slow", "/error", "/close", "/big", "/redirect"]
        let outcomes = await Self.within(30, "requests to five hosts") {
            await withTaskGroup(of: String.self) { group in
                for index in 0..<100 {
                    let url = URL(string: "\(bases[index % 5])\(paths[index % paths.count])")!
                    group.addTask { await Self.send(transport, HTTPRequest(url: url)) }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        #expect(outcomes?.count == 100)
        for outcome in outcomes ?? [] { #expect(Self.isAnswerOrCRUDError(outcome), "\(outcome)") }
        for base in bases { await Self.checkGateIsFree(transport, base, "\(base)") }
        try await transport.shutdown()
    }
}
#endif
