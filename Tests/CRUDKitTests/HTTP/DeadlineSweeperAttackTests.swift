import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKitHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension NetworkTests {
    /// Red-team probes of `DeadlineSweeper` through `URLSessionTransport` against a loopback server: the order
    /// deadlines are watched in, deadlines at the edges of `TimeInterval`, redirects, downloads, races with the
    /// answer and with cancellation, many exchanges at once, and every way an exchange can end (nothing stays
    /// watched). A probe named `bug…` asserts the promised behaviour and fails while the bug is there.
    @Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct DeadlineSweeperAttackTests {
        /// How much later than its deadline an exchange may end (the machine has 2 shared cores).
        static let allowedLateness = 0.3

        /// `/never` never answers; `/trickle` sends a byte every 50 ms for 5 s; `/after/<ms>` answers `ok` after
        /// `<ms>`; `/hop/<n>/<ms>` answers a 302 to `/hop/<n-1>/<ms>` after `<ms>` (200 `ok` at 0); `/big` is
        /// 4,096 bytes; anything else is 200 `ok` at once.
        static func makeServer() throws -> LoopbackServer {
            let server = LoopbackServer(
                maximumConnections: 700,
                synchronousHandler: { request in
                    let parts = request.path.split(separator: "/").map(String.init)
                    let number = { (index: Int) in parts.count > index ? Double(parts[index]) ?? 0 : 0 }
                    switch parts.first {
                    case "never":
                        return .fault(.neverAnswer)
                    case "trickle":
                        return .stream(
                            LoopbackStream(chunks: Array(repeating: Data("x".utf8), count: 100), delay: 0.05))
                    case "after":
                        return .stream(
                            LoopbackStream(chunks: [Data("ok".utf8)], delay: number(1) / 1000, delaysHead: true))
                    case "hop" where number(1) > 0:
                        return .stream(
                            LoopbackStream(
                                status: 302,
                                headers: ["Location": "/hop/\(Int(number(1)) - 1)/\(Int(number(2)))"],
                                chunks: [Data("r".utf8)],
                                delay: number(2) / 1000,
                                delaysHead: true
                            ))
                    case "hop":
                        return .stream(
                            LoopbackStream(chunks: [Data("ok".utf8)], delay: number(2) / 1000, delaysHead: true))
                    case "big":
                        return .response(HTTPResponse(status: 200, body: Data(count: 4096)))
                    default:
                        return .response(HTTPResponse(status: 200, body: Data("ok".utf8)))
                    }
                })
            try server.start()
            return server
        }

        static func makeTransport(maximumResponseSize: Int = 50 << 20) -> URLSessionTransport {
            URLSessionTransport(
                configuration: .init(
                    maximumConnectionsPerHost: 600, idleTimeout: 20, deadline: 30,
                    maximumResponseSize: maximumResponseSize))
        }

        /// How an exchange ended (`status N` or the error's description) and after how many seconds.
        static func run(
            _ transport: URLSessionTransport, _ url: URL, deadline: TimeInterval?
        ) async -> (outcome: String, seconds: Double) {
            let clock = ContinuousClock()
            let start = clock.now
            var outcome: String
            do {
                outcome = "status \(try await transport.send(HTTPRequest(url: url, deadline: deadline)).status)"
            } catch let error as CRUDError {
                outcome = "\(error)"
            } catch {
                outcome = "other error \(error)"
            }
            let elapsed = clock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return (outcome, seconds)
        }

        static func timedOut(_ seconds: TimeInterval) -> String { "\(CRUDError.timedOut(.deadline(seconds)))" }

        /// The CPU time this process has used so far, in seconds.
        static func processCPUTime() -> Double {
            var usage = rusage()
            #if canImport(Glibc)
            getrusage(RUSAGE_SELF.rawValue, &usage)
            #else
            getrusage(RUSAGE_SELF, &usage)
            #endif
            let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
            return user + system
        }

        // MARK: - Ordering

        /// Deadlines watched latest first (the timer re-armed for each earlier one) and in shuffled order, with
        /// exchanges answered 0.2 s before their deadline among them: each ends at its own deadline, never before
        /// it and at most `allowedLateness` after, the answered ones succeed, and nothing stays watched.
        @Test func decreasingAndShuffledDeadlinesEachEndAtTheirOwn() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = Self.makeTransport()
            let decreasing = (1...20).reversed().map { Double($0) * 0.05 }
            let shuffled = [0.35, 0.8, 0.15, 0.6, 0.05, 0.95, 0.25, 0.7, 0.45, 0.1, 0.9, 0.55, 0.075, 0.125]
            let answered = [0.4, 0.7, 1.0]
            let never = server.baseURL.appendingPathComponent("never")
            let results = try await withinSeconds(10) {
                try await withThrowingTaskGroup(of: (Double, Bool, String, Double).self) { group in
                    for deadline in decreasing + shuffled {
                        group.addTask {
                            let (outcome, seconds) = await Self.run(transport, never, deadline: deadline)
                            return (deadline, false, outcome, seconds)
                        }
                    }
                    for deadline in answered {
                        let url = server.baseURL.appendingPathComponent("after/\(Int((deadline - 0.2) * 1000))")
                        group.addTask {
                            let (outcome, seconds) = await Self.run(transport, url, deadline: deadline)
                            return (deadline, true, outcome, seconds)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            for (deadline, isAnswered, outcome, seconds) in results {
                if isAnswered {
                    #expect(outcome == "status 200", "answered 0.2 s before its deadline \(deadline) s: \(outcome)")
                } else {
                    #expect(outcome == Self.timedOut(deadline))
                    #expect(seconds >= deadline, "\(deadline) s ended early, after \(seconds) s")
                    #expect(seconds - deadline < Self.allowedLateness, "\(deadline) s ended after \(seconds) s")
                }
            }
            #expect(transport.deadlines.count == 0)
        }

        // MARK: - Edges

        /// Zero, negative and tiny deadlines end the exchange at once with the deadline they were given.
        @Test(arguments: [0, -0.0, -1, 1e-9, -Double.greatestFiniteMagnitude])
        func zeroNegativeAndTinyDeadlinesEndAtOnce(deadline: Double) async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = Self.makeTransport()
            let (outcome, seconds) = try await withinSeconds(5) {
                await Self.run(transport, server.baseURL.appendingPathComponent("never"), deadline: deadline)
            }
            #expect(outcome == Self.timedOut(deadline))
            #expect(seconds < Self.allowedLateness)
            #expect(transport.deadlines.count == 0)
        }

        /// Not-a-number, infinite and too-far deadlines mean none: an answer after 0.3 s arrives (the transport's
        /// own 30 s deadline is lifted too), and nothing is watched.
        @Test(arguments: [Double.nan, .infinity, 1e18, .greatestFiniteMagnitude, 1e10])
        func deadlinesTooFarToCountAreNone(deadline: Double) async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = Self.makeTransport()
            let (outcome, _) = try await withinSeconds(5) {
                await Self.run(transport, server.baseURL.appendingPathComponent("after/300"), deadline: deadline)
            }
            #expect(outcome == "status 200")
            #expect(transport.deadlines.count == 0)
        }

        /// A deadline just under 2^63 ns (≈ 292 years) passes the transport's "too far to count" check
        /// (`nanoseconds < UInt64.max / 2`), but the uptime it falls at is at or above 2^63, which libdispatch reads
        /// as a time on another clock (the high bit marks a continuous/wall time), whose value is in the past: the
        /// sweeper's timer fires at once, `sweep()` finds nothing due and re-arms it for the same time, and it
        /// fires again: a busy loop on the sweeper's queue for as long as the exchange is in flight. Measured: a
        /// whole core for the 0.6 s the exchange waits. Expected: a waiting exchange costs (nearly) no CPU, as with no
        /// deadline.
        @Test func bugADeadlineJustUnder292YearsSpinsTheSweeperTimer() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let url = server.baseURL.appendingPathComponent("after/600")
            // Exchanges without a deadline first (they leave the sweeper's timer unarmed): the first one on a new
            // connection costs CPU of its own; the second, on the kept connection, is the baseline.
            let transport = Self.makeTransport()
            let warmUp = try await withinSeconds(5) { await Self.run(transport, url, deadline: .infinity) }
            #expect(warmUp.outcome == "status 200")
            // At least `uptime / 2` past 2^63 ns when it is added to the uptime, yet under 2^63 ns itself.
            let uptime = DispatchTime.now().uptimeNanoseconds
            let deadline = Double((UInt64(1) << 63) - uptime / 2) / 1e9
            #expect(URLSessionTransport.deadline(deadline) != nil, "the transport keeps this deadline")

            let baselineStart = Self.processCPUTime()
            let baseline = try await withinSeconds(5) { await Self.run(transport, url, deadline: .infinity) }
            let baselineCPU = Self.processCPUTime() - baselineStart

            let start = Self.processCPUTime()
            let (outcome, seconds) = try await withinSeconds(5) { await Self.run(transport, url, deadline: deadline) }
            let cpu = Self.processCPUTime() - start

            #expect(baseline.outcome == "status 200")
            #expect(outcome == "status 200")
            #expect(transport.deadlines.count == 0)
            #expect(
                cpu - baselineCPU < 0.5 * seconds,
                "a \(deadline) s deadline cost \(cpu) s of CPU in \(seconds) s (no deadline: \(baselineCPU) s)")
        }

        /// A deadline on a download to a file ends it with that deadline, leaves no file, and nothing stays watched.
        @Test func aDownloadEndsAtItsDeadline() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let destination = directory.appendingPathComponent("file")
            let transport = Self.makeTransport()
            let request = HTTPRequest(url: server.baseURL.appendingPathComponent("trickle"), deadline: 0.3)
            let clock = ContinuousClock()
            let start = clock.now
            let outcome = try await withinSeconds(5) { () -> String in
                do {
                    return "status \(try await transport.download(request, to: destination, observer: .none).status)"
                } catch {
                    return "\(error)"
                }
            }
            let elapsed = clock.now - start
            #expect(outcome == Self.timedOut(0.3))
            #expect(elapsed >= .milliseconds(300) && elapsed < .milliseconds(600), "ended after \(elapsed)")
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            #expect(transport.deadlines.count == 0)
        }

        /// A resumable `DownloadTask` whose request has a deadline ends with it, and nothing stays watched.
        @Test func aDownloadTaskEndsAtItsDeadline() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let transport = Self.makeTransport()
            let download = transport.downloadTask(
                HTTPRequest(url: server.baseURL.appendingPathComponent("trickle"), deadline: 0.3),
                to: directory.appendingPathComponent("file"))
            let outcome = try await withinSeconds(5) { () -> String in
                do {
                    return "finished \(try await download.finished.lastPathComponent)"
                } catch {
                    return "\(error)"
                }
            }
            #expect(outcome == Self.timedOut(0.3))
            #expect(transport.deadlines.count == 0)
        }

        /// A `POST` with a body (sent on a session of its own) and a `HEAD` end at their deadline like a `GET`.
        @Test func aWriteOnItsOwnSessionAndAHeadEndAtTheirDeadline() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = Self.makeTransport()
            let url = server.baseURL.appendingPathComponent("never")
            let requests = [
                HTTPRequest(method: .post, url: url, body: .data(Data(count: 10_000)), deadline: 0.25),
                HTTPRequest(method: .head, url: url, deadline: 0.3),
            ]
            for request in requests {
                let clock = ContinuousClock()
                let start = clock.now
                let outcome = try await withinSeconds(5) { () -> String in
                    do {
                        return "status \(try await transport.send(request).status)"
                    } catch {
                        return "\(error)"
                    }
                }
                let elapsed = clock.now - start
                let deadline = request.deadline ?? 0
                #expect(outcome == Self.timedOut(deadline), "\(request.method)")
                #expect(elapsed >= .milliseconds(Int(deadline * 1000)) && elapsed < .milliseconds(600))
            }
            #expect(transport.deadlines.count == 0)
        }

        /// Pausing a `DownloadTask` releases its exchange from the sweeper (the attempt is over); resuming watches
        /// the next attempt, and cancelling releases it again.
        @Test func pausingADownloadTaskReleasesItsDeadline() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let transport = Self.makeTransport()
            let (bytes, arrived) = AsyncStream.makeStream(of: Void.self)
            let download = transport.downloadTask(
                HTTPRequest(url: server.baseURL.appendingPathComponent("trickle"), deadline: 20),
                to: directory.appendingPathComponent("file"),
                observer: TransferObserver(download: { _ in arrived.yield() }))
            let watchedWhileRunning = try await withinSeconds(5) { () -> Int in
                for await _ in bytes { break }
                return transport.deadlines.count
            }
            #expect(watchedWhileRunning == 1)
            download.pause()
            let released = try await withinSeconds(5) { () -> Bool in
                while transport.deadlines.count != 0 { await Task.yield() }
                return true
            }
            #expect(released)
            #expect(download.phase == .paused)
            download.cancel()
            let outcome = try await withinSeconds(5) { () -> String in
                do {
                    return "finished \(try await download.finished.lastPathComponent)"
                } catch {
                    return "\(error)"
                }
            }
            #expect(outcome == "\(CRUDError.cancelled)")
            #expect(transport.deadlines.count == 0)
        }

        // MARK: - Redirects

        /// One deadline covers every hop: four 302s of 150 ms each (0.75 s in all) against a 0.4 s deadline end at
        /// 0.4 s, not at a hop's own 0.4 s; a chain within its deadline succeeds.
        @Test func oneDeadlineCoversEveryRedirectHop() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = Self.makeTransport()
            let (long, longSeconds) = try await withinSeconds(5) {
                await Self.run(transport, server.baseURL.appendingPathComponent("hop/4/150"), deadline: 0.4)
            }
            #expect(long == Self.timedOut(0.4))
            #expect(longSeconds >= 0.4 && longSeconds - 0.4 < Self.allowedLateness, "ended after \(longSeconds) s")
            let (short, _) = try await withinSeconds(5) {
                await Self.run(transport, server.baseURL.appendingPathComponent("hop/3/20"), deadline: 2)
            }
            #expect(short == "status 200")
            #expect(transport.deadlines.count == 0)
        }

        /// A redirect (two hops of 60 ms) arriving just as the deadline fires: each exchange ends once, with the
        /// answer or its deadline, and nothing stays watched.
        @Test func aRedirectArrivingAsTheDeadlineFires() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = Self.makeTransport()
            let url = server.baseURL.appendingPathComponent("hop/2/60")
            let deadlines = (0..<16).map { 0.05 + Double($0) * 0.01 }
            let results = try await withinSeconds(8) {
                try await withThrowingTaskGroup(of: (Double, String, Double).self) { group in
                    for deadline in deadlines {
                        group.addTask {
                            let (outcome, seconds) = await Self.run(transport, url, deadline: deadline)
                            return (deadline, outcome, seconds)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            for (deadline, outcome, seconds) in results {
                #expect(outcome == "status 200" || outcome == Self.timedOut(deadline), "\(deadline) s: \(outcome)")
                if outcome != "status 200" { #expect(seconds >= deadline && seconds - deadline < Self.allowedLateness) }
            }
            #expect(transport.deadlines.count == 0)
        }

        // MARK: - Races

        /// Deadlines of 0.1–3 ms against an answer that comes at once: each exchange ends exactly once (a second
        /// resume of its continuation would trap), with the answer or its deadline, and nothing stays watched.
        @Test func tinyDeadlinesRaceTheAnswer() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = Self.makeTransport()
            let url = server.baseURL.appendingPathComponent("ok")
            var endings: [String: Int] = [:]
            for round in 0..<6 {
                let results = try await withinSeconds(5) {
                    try await withThrowingTaskGroup(of: (Double, String).self) { group in
                        for index in 0..<50 {
                            let deadline = 0.0001 + Double((index * 7 + round * 13) % 30) * 0.0001
                            group.addTask { (deadline, await Self.run(transport, url, deadline: deadline).outcome) }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                }
                for (deadline, outcome) in results {
                    let ending =
                        outcome == "status 200" ? "answer" : outcome == Self.timedOut(deadline) ? "deadline" : outcome
                    endings[ending, default: 0] += 1
                }
            }
            #expect(Set(endings.keys).isSubset(of: ["answer", "deadline"]), "\(endings)")
            #expect(endings.values.reduce(0, +) == 300)
            #expect(transport.deadlines.count == 0)
        }

        /// Cancellation racing a 1 ms deadline, and cancellation before the task is created: each exchange ends once,
        /// cancelled or by its deadline, and nothing stays watched.
        @Test func cancellationRacesTheDeadline() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = Self.makeTransport()
            let never = server.baseURL.appendingPathComponent("never")
            let outcomes = try await withinSeconds(8) { () -> [String] in
                var tasks: [Task<String, Never>] = []
                for index in 0..<200 {
                    let task = Task { await Self.run(transport, never, deadline: 0.001).outcome }
                    if index % 2 == 0 { await Task.yield() }
                    task.cancel()
                    tasks.append(task)
                }
                var outcomes: [String] = []
                for task in tasks { outcomes.append(await task.value) }
                return outcomes
            }
            let allowed: Set = ["\(CRUDError.cancelled)", Self.timedOut(0.001)]
            #expect(outcomes.allSatisfy { allowed.contains($0) }, "\(Set(outcomes))")
            #expect(transport.deadlines.count == 0)
        }

        /// 500 exchanges at once: 100 that are never answered, with deadlines of 0.2–1.2 s, and 400 answered at once,
        /// with deadlines of 0.2–2.2 s. Each unanswered one ends at its own deadline; each answered one with its
        /// answer or its own deadline; nothing stays watched.
        @Test func fiveHundredExchangesWithMixedDeadlines() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = Self.makeTransport()
            let results = try await withinSeconds(15) {
                try await withThrowingTaskGroup(of: (Bool, Double, String, Double).self) { group in
                    for index in 0..<500 {
                        let answered = index % 5 != 0
                        let deadline = 0.2 + Double((index * 37) % 100) * (answered ? 0.02 : 0.01)
                        let url = server.baseURL.appendingPathComponent(answered ? "ok" : "never")
                        group.addTask {
                            let (outcome, seconds) = await Self.run(transport, url, deadline: deadline)
                            return (answered, deadline, outcome, seconds)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            #expect(results.count == 500)
            for (answered, deadline, outcome, seconds) in results {
                if answered {
                    #expect(outcome == "status 200" || outcome == Self.timedOut(deadline), "\(outcome)")
                } else {
                    #expect(outcome == Self.timedOut(deadline))
                    #expect(
                        seconds >= deadline && seconds - deadline < 2 * Self.allowedLateness, "\(deadline): \(seconds)")
                }
            }
            #expect(transport.deadlines.count == 0)
        }

        /// The caller drops its transport while an exchange is in flight: the deadline still fires, and afterwards
        /// the transport and its sweeper are freed (nothing keeps a transfer watched).
        @Test func theDeadlineFiresAfterTheTransportIsDropped() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            var transport: URLSessionTransport? = Self.makeTransport()
            weak let sweeper = transport?.deadlines
            let never = server.baseURL.appendingPathComponent("never")
            let tasks = (0..<5).map { index in
                Task { [transport] in
                    await Self.run(transport!, never, deadline: 0.2 + Double(index) * 0.05).outcome
                }
            }
            transport = nil
            let outcomes = try await withinSeconds(5) { () -> [String] in
                var outcomes: [String] = []
                for task in tasks { outcomes.append(await task.value) }
                return outcomes
            }
            #expect(outcomes == (0..<5).map { Self.timedOut(0.2 + Double($0) * 0.05) })
            #expect(sweeper?.count ?? 0 == 0)
        }

        // MARK: - Beside the deadline: the idle watchdog's arithmetic

        static let childVariable = "CRUDKIT_DEADLINE_ATTACK_IDLE_CHILD"

        /// Run in a child process only (see `bugAHugeFractionalIdleTimeoutTrapsTheProcess`).
        @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] == "1"))
        func hugeFractionalIdleTimeoutChild() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = URLSessionTransport(configuration: .init(idleTimeout: 1e12 + 0.5))
            let (outcome, _) = await Self.run(transport, server.baseURL, deadline: 5)
            #expect(outcome == "status 200")
        }

        /// A fractional idle timeout too large for nanoseconds in an `Int` (1e12 + 0.5 s) traps the process:
        /// `URLSessionTransfer.makeIdleTimer(after:)` converts `seconds * 1e9` with `Int(_:)` ("Double value cannot
        /// be converted to Int because the result would be greater than Int.max"). Expected: the request is answered
        /// (the idle timeout given to URLSession is already capped at a year).
        @Test func bugAHugeFractionalIdleTimeoutTrapsTheProcess() async throws {
            guard ProcessInfo.processInfo.environment[Self.childVariable] == nil else { return }
            let ending = try await ChildTestProcess.run(
                filter: "hugeFractionalIdleTimeoutChild", environment: [Self.childVariable: "1"], timeLimit: 30)
            #expect(
                ending.reason == .exit && ending.status == 0 && !ending.timedOut,
                "\(ending.reason) \(ending.status): \(ending.standardError.suffix(300))")
        }

        // MARK: - Leaks

        /// Every way an exchange ends without its deadline leaves nothing watched: a refused connection, an invalid
        /// header, a missing body file, a body over the size limit, a scheme URLSession refuses, a redirect chain.
        @Test func nothingStaysWatchedAfterAnyEnding() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let closed = try Self.makeServer()
            let refused = closed.baseURL
            closed.stop()
            let transport = Self.makeTransport(maximumResponseSize: 100)
            let outcomes = try await withinSeconds(8) { () -> [String] in
                var outcomes: [String] = []
                outcomes.append(await Self.run(transport, refused, deadline: 5).outcome)
                outcomes.append(
                    await Self.run(transport, server.baseURL.appendingPathComponent("big"), deadline: 5).outcome)
                outcomes.append(await Self.run(transport, URL(string: "ftp://127.0.0.1:1/x")!, deadline: 5).outcome)
                outcomes.append(
                    await Self.run(transport, server.baseURL.appendingPathComponent("hop/3/0"), deadline: 5).outcome)
                let invalid = HTTPRequest(url: server.baseURL, headers: ["X-Bad": "a\r\nb"], deadline: 5)
                do {
                    _ = try await transport.send(invalid)
                    outcomes.append("sent")
                } catch {
                    outcomes.append("\(error)")
                }
                let missing = HTTPRequest(
                    method: .post, url: server.baseURL,
                    body: .file(URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)")), deadline: 5)
                do {
                    _ = try await transport.send(missing)
                    outcomes.append("sent")
                } catch {
                    outcomes.append("\(error)")
                }
                return outcomes
            }
            #expect(outcomes[1] == "\(CRUDError.responseTooLarge(limit: 100))")
            #expect(outcomes[3] == "status 200")
            #expect(!outcomes.contains("sent"), "\(outcomes)")
            #expect(transport.deadlines.count == 0, "\(outcomes)")
        }
    }
}
