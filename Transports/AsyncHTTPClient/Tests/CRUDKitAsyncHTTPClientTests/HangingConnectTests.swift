import AsyncHTTPClient
import CRUDKit
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import CRUDKitAsyncHTTPClient

#if os(Linux)
/// A connection that never completes (a listener whose accept queue is full, so Linux drops further
/// SYNs), ended by every limit a request can carry, on every path of both transports. The promise under attack: the
/// error tells the truth about what ended the request, with its figure, and the same fault ends the same way on
/// `URLSessionTransport` and `AsyncHTTPClientTransport`.
@Suite(.timeLimit(.minutes(2))) struct HangingConnectTests {
    /// The ways a request is sent: collected (`api.get`), with a download observer, a streamed upload (a body past
    /// 64 KiB with an upload observer), to a file, and into a file to resume (`DownloadTask`'s path).
    static let paths = ["collected", "observed", "upload", "download", "receive"]

    /// Sends `request` by `path`; the outcome's summary and the seconds it took.
    static func attempt(
        _ transport: any ResumableTransport, _ path: String, _ request: HTTPRequest
    ) async -> (String, Double) {
        var request = request
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("red28-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let clock = ContinuousClock()
        let started = clock.now
        let result: Result<HTTPResponse, any Error>
        do {
            switch path {
            case "observed":
                result = .success(try await transport.send(request, observer: TransferObserver(download: { _ in })))
            case "upload":
                request.method = .post
                request.body = .data(Data(repeating: 0x61, count: 100_000))
                result = .success(try await transport.send(request, observer: TransferObserver(upload: { _ in })))
            case "download":
                result = .success(try await transport.download(request, to: file, observer: .none))
            case "receive":
                result = .success(
                    try await transport.receive(request, into: file, continuingAt: 0, observer: .none) { _ in })
            default:
                result = .success(try await transport.send(request))
            }
        } catch {
            result = .failure(error)
        }
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (HostileServerTests.summary(result), seconds)
    }

    /// Every path of both transports against one blackholed listener, at once; "transport path: outcome" each.
    static func everyPath(
        _ configuration: URLSessionTransport.Configuration, _ shape: @escaping @Sendable (inout HTTPRequest) -> Void
    ) async throws -> [String] {
        let hole = try ConnectTimeoutTests.Blackhole()
        let ahc = AsyncHTTPClientTransport(configuration: .init(matching: configuration))
        let session = URLSessionTransport(configuration: configuration)
        var request = HTTPRequest(url: hole.url)
        shape(&request)
        let sent = request
        let outcomes = await withTaskGroup(of: (String, String, Double).self) { group in
            for path in paths {
                group.addTask {
                    let ended = await ConnectionGateEndToEndTests.within(10, "ahc \(path)") {
                        await attempt(ahc, path, sent)
                    }
                    return ("ahc \(path)", ended?.0 ?? "hung", ended?.1 ?? 10)
                }
                group.addTask {
                    let ended = await ConnectionGateEndToEndTests.within(10, "urlsession \(path)") {
                        await attempt(session, path, sent)
                    }
                    return ("urlsession \(path)", ended?.0 ?? "hung", ended?.1 ?? 10)
                }
            }
            var all: [(String, String, Double)] = []
            for await outcome in group { all.append(outcome) }
            return all.sorted { $0.0 < $1.0 }
        }
        // Not `shutdown()`: it waits for the owned client's connect timeout (see
        // `shuttingDownAfterAHangingConnectIsPrompt`); the transport's deinit shuts the client down without waiting.
        withExtendedLifetime((hole, ahc)) {}
        return outcomes.map { "\($0.0): \($0.1) after \(String(format: "%.2f", $0.2)) s" }
    }

    /// Holds: no limit of the request's own, the configuration's idle time of 0.5 s ends every path as such.
    @Test func theConfigurationsIdleTimeEndsEveryPath() async throws {
        let seen = try await Self.everyPath(.init(idleTimeout: 0.5)) { _ in }
        for line in seen {
            #expect(line.contains(": timedOut(idle(0.5)) after"), "\(line)")
        }
    }

    /// FIXED: a request whose own `timeout` (2 s) is longer than the configuration's idle time (0.5 s).
    /// `URLSessionTransport` waits its 2 s and says `timedOut(idle(2.0))`; `AsyncHTTPClientTransport` is cut off by
    /// the owned client's connect timeout (the configuration's idle time + 1 s) at 1.5 s, before the request's own
    /// idle time, and says `transport(cannotConnect)`. The same fault ends two ways, and early on one of them (and
    /// `RetryPolicy` then retries even a `POST` on AsyncHTTPClient only: `.cannotConnect` counts as "never sent").
    @Test func aRequestsOwnLongerIdleTimeEndsItOnBothTransports() async throws {
        let seen = try await Self.everyPath(.init(idleTimeout: 0.5)) { $0.timeout = 2 }
        for line in seen {
            #expect(line.contains(": timedOut(idle(2.0)) after"), "\(line)")
        }
    }

    /// FIXED: a request without an idle limit of its own (`timeout` infinite or NaN) and a 3 s deadline, over a
    /// configuration whose idle time is 0.5 s. Expected `timedOut(deadline(3.0))` after 3 s (what URLSessionTransport
    /// says); AsyncHTTPClientTransport ends at 1.5 s with `transport(cannotConnect)`: neither of the request's limits
    /// ran out.
    @Test(arguments: [Double.infinity, Double.nan])
    func aRequestWithoutIdleLimitEndsByItsDeadline(_ timeout: Double) async throws {
        let seen = try await Self.everyPath(.init(idleTimeout: 0.5)) {
            $0.timeout = timeout
            $0.deadline = 3
        }
        for line in seen {
            #expect(line.contains(": timedOut(deadline(3.0)) after"), "\(line)")
        }
    }

    /// FIXED (the consequence of the one above): a `POST` whose own `timeout` (2 s) is longer than the
    /// configuration's idle time (0.5 s), to a host whose connection never completes, through `RetryPolicy`
    /// (2 attempts). Through URLSession it fails once with `timedOut(idle(2.0))` (a POST is not repeatable); through
    /// AsyncHTTPClient the connect timeout's `.cannotConnect` reads as "never sent", so the POST is sent twice.
    @Test func aPOSTOverAHangingConnectIsRetriedTheSameWayOnBothTransports() async throws {
        let hole = try ConnectTimeoutTests.Blackhole()
        var seen: [String] = []
        for name in ["ahc", "urlsession"] {
            let failures = NIOLockedValueBox<[String]>([])
            let policy = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(1), jitter: 0) { _, error, _ in
                failures.withLockedValue { $0.append(HostileServerTests.summary(error)) }
                return .doNotRetry
            }
            let configuration = URLSessionTransport.Configuration(idleTimeout: 0.5)
            let ahc = AsyncHTTPClientTransport(configuration: .init(matching: configuration))
            let transport: any Transport =
                name == "ahc" ? ahc : URLSessionTransport(configuration: configuration)
            let api = API(
                baseURL: hole.url, transport: transport,
                middleware: .standard.inserting(RetryMiddleware(policy: policy)))
            var request = HTTPRequest(method: .post, url: hole.url, body: .data(Data("{}".utf8)))
            request.timeout = 2
            do { _ = try await api.send(request) } catch {}
            seen.append("\(name): \(failures.withLockedValue { $0 })")
            try await ahc.shutdown()
        }
        #expect(seen == ["ahc: [\"timedOut(idle(2.0))\"]", "urlsession: [\"timedOut(idle(2.0))\"]"], "\(seen)")
    }

    /// Holds: a deadline (0.4 s) shorter than the idle time (5 s) ends a hanging connect by the deadline.
    @Test func aDeadlineShorterThanTheIdleTimeEndsTheConnect() async throws {
        let seen = try await Self.everyPath(.init(idleTimeout: 5)) { $0.deadline = 0.4 }
        for line in seen {
            #expect(line.contains(": timedOut(deadline(0.4)) after"), "\(line)")
        }
    }

    /// Holds: an idle time that is huge (1e300 s) or not a number is none; the 0.5 s deadline ends the connect.
    @Test(arguments: [1e300, Double.nan, Double.infinity])
    func anEndlessIdleTimeLeavesTheConnectToTheDeadline(_ idle: Double) async throws {
        let seen = try await Self.everyPath(.init(idleTimeout: idle)) { $0.deadline = 0.5 }
        for line in seen {
            #expect(line.contains(": timedOut(deadline(0.5)) after"), "\(line)")
        }
    }

    /// FIXED for -1 and -10 (0, 1e-9 and -0.5 hold): zero, tiny and negative idle times end a hanging
    /// connect as the idle time, with the figure configured, on AsyncHTTPClient (20 tries each, collected and
    /// observed) and URLSession (once). From -0.999 s down the owned client's connect timeout (idle + 1 s) is
    /// clamped to 1 ms, the same as the watchdog's (and the idle deadline's on the streamed path): whichever timer
    /// fires first decides the error. Observed: the streamed path says `transport(cannotConnect)` 20 times of 20,
    /// the collected one 3 to 9 times of 20; URLSession says `timedOut(idle(-1.0))`.
    @Test(arguments: [0, 1e-9, -0.5, -1, -10])
    func zeroTinyAndNegativeIdleTimesEndAsTheIdleTime(_ idle: Double) async throws {
        let hole = try ConnectTimeoutTests.Blackhole()
        let ahc = AsyncHTTPClientTransport(configuration: .init(idleTimeout: idle))
        var seen: [String: Int] = [:]
        for path in ["collected", "observed"] {
            for _ in 0..<20 {
                let (outcome, _) = await Self.attempt(ahc, path, HTTPRequest(url: hole.url))
                seen["ahc \(path): \(outcome)", default: 0] += 1
            }
        }
        try await ahc.shutdown()
        let session = URLSessionTransport(configuration: .init(idleTimeout: idle))
        let (outcome, _) = await Self.attempt(session, "collected", HTTPRequest(url: hole.url))
        seen["urlsession: \(outcome)", default: 0] += 1
        #expect(
            seen == [
                "ahc collected: timedOut(idle(\(idle)))": 20, "ahc observed: timedOut(idle(\(idle)))": 20,
                "urlsession: timedOut(idle(\(idle)))": 1,
            ], "\(seen)")
    }

    /// Held after the fix (a regression of the first version of the connect timeout change, which made it the idle
    /// time + 1 s: `shutdown()` then took 30.7 s with an idle time of 30 s). `shutdown()` of a transport whose
    /// request to a host that never completes the connection already ended (here by its 0.3 s deadline) waits for
    /// AsyncHTTPClient's pending connect, at most its 10 s connect timeout.
    @Test func shuttingDownAfterAHangingConnectIsPrompt() async throws {
        let hole = try ConnectTimeoutTests.Blackhole()
        let ahc = AsyncHTTPClientTransport(configuration: .init(idleTimeout: 30))
        let (outcome, _) = await Self.attempt(ahc, "collected", HTTPRequest(url: hole.url, deadline: 0.3))
        #expect(outcome == "timedOut(deadline(0.3))")
        let clock = ContinuousClock()
        let started = clock.now
        let ended = await ConnectionGateEndToEndTests.within(60, "shutdown()") { (try? await ahc.shutdown()) != nil }
        let elapsed = clock.now - started
        #expect(ended == true)
        #expect(elapsed < .seconds(15), "shutdown() took \(elapsed) after the request had ended")
        withExtendedLifetime(hole) {}
    }

    /// Holds: 60 collected requests at once through 2 places per host to a host that never completes a connection:
    /// the 58 waiting at the gate end by their own idle time (armed when they started), like the 2 connecting, and
    /// the gate keeps nothing afterwards.
    @Test func sixtyRequestsQueuedBehindHangingConnectsAllEndByTheirIdleTime() async throws {
        let hole = try ConnectTimeoutTests.Blackhole()
        let ahc = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 2, idleTimeout: 0.5))
        let url = hole.url
        let seen = await withTaskGroup(of: String.self) { group in
            for _ in 0..<60 {
                group.addTask {
                    let (outcome, seconds) = await Self.attempt(ahc, "collected", HTTPRequest(url: url))
                    return seconds < 3 ? outcome : "\(outcome) after \(seconds) s"
                }
            }
            var all: [String: Int] = [:]
            for await outcome in group { all[outcome, default: 0] += 1 }
            return all
        }
        #expect(seen == ["timedOut(idle(0.5))": 60], "\(seen)")
        let gate = try #require(ahc.gate)
        await ConnectionGateTests.eventually { gate.isIdle }
        withExtendedLifetime(hole) {}
    }

    /// Holds: cancelling the calling task while the connection hangs ends every path as `cancelled`, promptly.
    @Test func cancellingWhileConnectingEndsAsCancelled() async throws {
        let hole = try ConnectTimeoutTests.Blackhole()
        let ahc = AsyncHTTPClientTransport(configuration: .init(idleTimeout: 30))
        let session = URLSessionTransport(configuration: .init(idleTimeout: 30))
        var seen: [String] = []
        for (name, transport) in [("ahc", ahc as any ResumableTransport), ("urlsession", session)] {
            for path in Self.paths {
                let url = hole.url
                let task = Task { await Self.attempt(transport, path, HTTPRequest(url: url)) }
                if name == "ahc", path == "collected" {
                    await ConnectionGateTests.eventually { ahc.collecting.withLockedValue { $0 } == 1 }
                } else {
                    for _ in 0..<100 { await Task.yield() }
                }
                task.cancel()
                let (outcome, seconds) = await task.value
                seen.append("\(name) \(path): \(outcome)\(seconds < 5 ? "" : " after \(seconds) s")")
            }
        }
        #expect(seen.allSatisfy { $0.hasSuffix(": cancelled") }, "\(seen)")
    }
}
#endif
