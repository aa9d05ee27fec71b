#if os(Linux)
import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Glibc
import Synchronization
import Testing

@testable import CRUDKitAsyncHTTPClient

// MARK: - Keys, streamed requests, retries

extension ConnectionGateEndToEndTests {
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
                            } catch { return HostileServerTests.summary(error) }
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
                return connection.send(Self.answer(503, "", "Retry-After: 8\r\n"))
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
        // The retry is 8 s away; busy loops have made one exchange 2.8 s late.
        #expect(clock.now - started < .seconds(5), "it waited for the retry")
        #expect(hits.count("/retry") == 1, "the retry had not been sent yet")
        let status = await Self.within(30, "the retried request") { try? await retried.value }
        #expect(status == 200)
        await Self.checkGateIsFree(transport, base, "retry")
        try await transport.shutdown()
    }
}
// MARK: - The same fault through both transports

extension ConnectionGateEndToEndTests {
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
                : AsyncHTTPClientTransport(configuration: .init(matching: configuration))
            let base = server.url
            let holder = Task {
                HostileServerTests.summary(
                    await HostileServerTests.outcome(transport, HTTPRequest(url: URL(string: "\(base)\(holding)")!)))
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
            let waiter = Task { [request] in
                HostileServerTests.summary(await HostileServerTests.outcome(transport, request))
            }
            if ending == "cancel" {
                if let ahc = transport as? AsyncHTTPClientTransport, let gate = ahc.gate,
                    let host = AsyncHTTPClientTransport.gateKey(for: base)
                {
                    await ConnectionGateTests.eventually { gate.counts(host).waiting == 1 }
                }
                waiter.cancel()
            }
            let outcome = await Self.within(10, "\(name): the waiter") { await waiter.value }
            // Within 10 s or "hung"; busy loops have made one exchange 2.8 s late.
            #expect(clock.now - started < .seconds(6), "\(name): \(outcome ?? "hung")")
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

extension ConnectionGateEndToEndTests {
    /// Requests that came to the gate one after another are sent in that order once places come free.
    /// The first answer is held until all ten waiters are queued: with a fixed 0.2 s pause instead, a loaded machine
    /// that queued them slower let `/first` end early, and the wait for the next waiter to queue never held.
    @Test func waitersAreSentInTheOrderTheyCame() async throws {
        let hits = Hits()
        let release = DispatchSemaphore(value: 0)
        let server = try Self.server(hits: hits) { path, _, connection in
            if path == "/first" { _ = release.wait(timeout: .now() + 30) }
            return connection.send(Self.answer())
        }
        defer { server.stop() }
        defer { release.signal() }
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
        release.signal()
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

extension ConnectionGateEndToEndTests {
    /// Fifty requests at once to a port nothing listens on, one place: each fails at once with its cause, waiters
    /// included, and nothing is kept. The port is held by a socket that never listens (a stopped server's port, as
    /// before, could be taken by a server of a test running beside this one, which then answered).
    @Test func refusedConnectionsWithWaitersAllEndAndKeepNoPlace() async throws {
        let (port, reserved) = try PassedInClientConnectTests.refusedPort()
        defer { close(reserved) }
        let url = URL(string: "http://127.0.0.1:\(port)")!
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
        var servers: [HostileServer] = []
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
