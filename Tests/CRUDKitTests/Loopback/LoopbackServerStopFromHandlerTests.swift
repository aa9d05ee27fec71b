import CRUDKit
import CRUDKitTesting
import Dispatch
import Foundation
import Synchronization
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

extension NetworkTests {
    /// `LoopbackServer.stop()` from tasks a handler spawned, from a handler then the test, twice from
    /// a handler, during uploads, downloads and faults, over 1,000 cycles, and odd idle times and stream delays.
    @Suite(.timeLimit(.minutes(TestEnvironment.minutes(3)))) struct LoopbackServerStopFromHandlerTests {
        /// Documented since (the red team filed it as a bug): a task the handler spawned (`Task { server.stop() }`)
        /// inherits the handler's task-local, so its `stop()` returns at once, as the handler's own would, while
        /// another connection's handler still runs. `stop()`'s documentation says so; this pins it.
        @Test func stopFromATaskAHandlerSpawnedReturnsAtOnce() throws {
            let probe = SpawnedStopProbe()
            let server = LoopbackServer { request in
                if request.target == "/block" {
                    probe.blockedEntered.store(true, ordering: .releasing)
                    await withCheckedContinuation { continuation in
                        DispatchQueue.global().async {
                            probe.release.wait()
                            continuation.resume()
                        }
                    }
                    probe.blockedReturned.store(true, ordering: .releasing)
                } else {
                    Task { probe.stopFromTask() }
                }
                return .response(HTTPResponse(status: 200))
            }
            probe.box.withLock { $0 = server }
            try server.start()
            let blocked = try RawConnection(port: server.port)
            try blocked.send("GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(eventually(10) { probe.blockedEntered.load(ordering: .acquiring) })
            let stopper = try RawConnection(port: server.port)
            try stopper.send("GET /stop HTTP/1.1\r\nHost: x\r\n\r\n")
            // Wait for the spawned stop() to return while /block still runs, then let the blocked handler end. The
            // wait is bounded by 60 s (300 s under a sanitizer), not 2 s: the spawned task needs a thread of the
            // pool, which the suites running beside this one keep busy (0.7 s under ThreadSanitizer), and a stop()
            // that returned after the handler was released read as one that had waited for it.
            let limit = DispatchTime.now() + .seconds(TestEnvironment.underSanitizer ? 300 : 60)
            let returnedInTime = probe.stopped.wait(timeout: limit) == .success
            let openWhenReturned = server.openConnections
            probe.release.signal()
            if !returnedInTime { probe.stopped.wait() }
            let waited = probe.waitedForBlocked.load(ordering: .acquiring)
            #expect(
                !waited,
                """
                stop() from a task spawned by a handler waited for the other handler \
                (\(openWhenReturned) connection(s) open when it could have returned)
                """)
            server.stop()
            probe.box.withLock { $0 = nil }
        }

        /// FIXED: `stop()` from a handler, then `stop()` from the test. The test's call waits for the
        /// server's threads but not for the "LoopbackServer.stop" thread the handler's call started, which closes
        /// the wake pipe: the test's `stop()` can return with that thread still running and the pipe still open
        /// ("returns once every thread it started has ended"). Observed over 300 cycles: 30 in `swift test`, as many
        /// as fit in the time under `.ci/stress.sh`.
        @Test func stopFromAHandlerThenFromTheTestClosesEverythingFirst() throws {
            try stopFromAHandlerThenFromTheTest(.quick(30))
        }

        @Test(.enabled(if: StressRounds.enabled, StressRounds.skipReason), StressRounds.timeLimit)
        func stopFromAHandlerThenFromTheTestClosesEverythingFirstUnderStress() throws {
            try stopFromAHandlerThenFromTheTest(.timed)
        }

        private func stopFromAHandlerThenFromTheTest(_ rounds: StressRounds) throws {
            var late = 0
            for _ in rounds {
                let box = Mutex<LoopbackServer?>(nil)
                let server = LoopbackServer(synchronousHandler: { _ in
                    box.withLock { $0 }?.stop()
                    return .response(HTTPResponse(status: 200))
                })
                box.withLock { $0 = server }
                let before = openPipes()
                try server.start()
                let client = try RawConnection(port: server.port)
                try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try client.readToEnd()
                server.stop()
                let left = openPipes().subtracting(before)
                if !left.isEmpty, eventually(2, { openPipes().isDisjoint(with: left) }) { late += 1 }
                box.withLock { $0 = nil }
            }
            #expect(late == 0, "in \(late) of \(rounds) the wake pipe was still open when the test's stop() returned")
        }

        /// Documented since (the red team filed it as an undocumented limit): the reply of the handler that calls
        /// `stop()` is never sent. `stop()` shuts down every connection at once, the caller's own included, so the
        /// client sees the connection close without a status line; this pins it (sync and async handlers).
        @Test(arguments: [false, true])
        func theReplyOfTheHandlerThatStopsIsNotSent(async: Bool) throws {
            var lost = 0
            for _ in 0..<10 {
                let box = Mutex<LoopbackServer?>(nil)
                let reply: @Sendable () -> LoopbackReply = {
                    box.withLock { $0 }?.stop()
                    return .response(HTTPResponse(status: 200, body: Data("bye".utf8)))
                }
                let server =
                    async ? LoopbackServer { _ in reply() } : LoopbackServer(synchronousHandler: { _ in reply() })
                box.withLock { $0 = server }
                try server.start()
                let client = try RawConnection(port: server.port)
                try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                if (try? client.readResponse())??.status != 200 { lost += 1 }
                server.stop()
                box.withLock { $0 = nil }
            }
            #expect(lost == 10, "\(10 - lost) of 10 clients got the reply of the handler that called stop()")
        }

        /// Holds: a handler calling `stop()` twice returns; cycles of a stop from a handler (every other one also
        /// from the test) leave no descriptor, pipe or thread behind: 100 in `swift test`, as many as fit in the time
        /// under `.ci/stress.sh`.
        @Test func stopsFromAHandlerLeakNothing() throws {
            try stopsFromAHandler(.quick(100))
        }

        @Test(.enabled(if: StressRounds.enabled, StressRounds.skipReason), StressRounds.timeLimit)
        func stopsFromAHandlerLeakNothingUnderStress() throws {
            try stopsFromAHandler(.timed)
        }

        private func stopsFromAHandler(_ rounds: StressRounds) throws {
            let descriptorsBefore = openDescriptorCount()
            let pipesBefore = openPipes()
            let threadsBefore = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
            var inodes: Set<UInt64> = []
            for cycle in rounds {
                let box = Mutex<LoopbackServer?>(nil)
                let server = LoopbackServer(synchronousHandler: { _ in
                    box.withLock { $0 }?.stop()
                    box.withLock { $0 }?.stop()
                    return .response(HTTPResponse(status: 200))
                })
                box.withLock { $0 = server }
                try server.start()
                let client = try RawConnection(port: server.port)
                try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try client.readToEnd()
                if cycle % 2 == 0 { server.stop() }
                inodes.formUnion(server.socketInodes)
                box.withLock { $0 = nil }
            }
            #expect(eventually(10) { openSocketInodes().isDisjoint(with: inodes) }, "a server socket stayed open")
            #expect(eventually(10) { openPipes().subtracting(pipesBefore).count < 4 }, "wake pipes stayed open")
            #expect(openDescriptorCount() - descriptorsBefore < 40)
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
            #expect(eventually(10) { threads - threadsBefore < 40 }, "\(threads - threadsBefore) more threads")
        }

        /// Holds: `stop()` returns promptly, closing the connection, during a chunked upload (half sent), a range
        /// download the client does not read (the server blocked in `send`), `.neverAnswer`, a stalled download,
        /// and a head delayed by a `.greatestFiniteMagnitude` stream delay.
        @Test(arguments: ["upload", "download", "never", "stall", "delayedHead"])
        func stopDuringAnExchangeReturnsPromptly(exchange: String) throws {
            let server = LoopbackServer(idleTimeout: .infinity) { _ in
                switch exchange {
                case "download": .download(LoopbackDownload(length: 1 << 30))
                case "never": .fault(.neverAnswer)
                case "stall": .download(LoopbackDownload(length: 1 << 20, stallAfter: 10))
                case "delayedHead":
                    .stream(LoopbackStream(chunks: [Data("a".utf8)], delay: .greatestFiniteMagnitude, delaysHead: true))
                default: .response(HTTPResponse(status: 200))
                }
            }
            try server.start()
            let client = try RawConnection(port: server.port)
            if exchange == "upload" {
                try client.send("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel")
                #expect(eventually(10) { server.openConnections == 1 })
            } else {
                let range = exchange == "download" ? "Range: bytes=5-\r\n" : ""
                try client.send("GET / HTTP/1.1\r\nHost: x\r\n\(range)\r\n")
                #expect(eventually(10) { server.requests.count == 1 })
            }
            let clock = ContinuousClock()
            let started = clock.now
            server.stop()
            #expect(clock.now - started < .seconds(5))
            #expect(server.openConnections == 0)
            #expect(eventually(5) { openSocketInodes().isDisjoint(with: server.socketInodes) })
        }

        /// Holds: eight threads each call `start()` then `stop()` on one server, round after round: every call
        /// returns, and nothing of the server stays open. 20 rounds in `swift test` (200 before), as many as fit in the
        /// time under `.ci/stress.sh`.
        @Test func startsAndStopsFromEightThreadsLeaveNothingOpen() throws {
            try startsAndStopsFromEightThreads(.quick(20))
        }

        @Test(.enabled(if: StressRounds.enabled, StressRounds.skipReason), StressRounds.timeLimit)
        func startsAndStopsFromEightThreadsLeaveNothingOpenUnderStress() throws {
            try startsAndStopsFromEightThreads(.timed)
        }

        private func startsAndStopsFromEightThreads(_ rounds: StressRounds) throws {
            for _ in rounds {
                let server = LoopbackServer { _ in .response(HTTPResponse(status: 200)) }
                let group = DispatchGroup()
                for _ in 0..<8 {
                    group.enter()
                    Thread {
                        _ = try? server.start()
                        server.stop()
                        group.leave()
                    }.start()
                }
                #expect(group.wait(timeout: .now() + 10) == .success, "a start() or stop() hung")
                server.stop()
                #expect(server.openConnections == 0)
                let inodes = server.socketInodes
                #expect(eventually(5) { openSocketInodes().isDisjoint(with: inodes) }, "a socket stayed open")
            }
        }

        /// Holds: clients that reset the connection (RST) in the middle of a 64 MB download, twenty times, raise
        /// no SIGPIPE: the server serves the next request, and stops cleanly.
        @Test func clientsResettingMidDownloadDoNotKillTheProcess() throws {
            let server = LoopbackServer { _ in .download(LoopbackDownload(length: 64 << 20)) }
            try server.start()
            for _ in 0..<20 {
                let client = try RawConnection(port: server.port)
                try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                var byte: UInt8 = 0
                _ = recv(client.descriptor, &byte, 1, 0)
                var option = linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(
                    client.descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
            }
            let client = try RawConnection(port: server.port)
            try client.send("GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=\(64 << 20 - 3)-\r\n\r\n")
            #expect(try client.readResponse()?.status == 206)
            server.stop()
            #expect(server.openConnections == 0)
        }

        /// Holds: odd idle times (NaN, ±infinity, negative, huge, a nanosecond) and odd stream delays (NaN,
        /// negative, -infinity) neither trap nor hang: each request is answered in full, and `stop()` ends the server.
        @Test(arguments: [Double.nan, Double.infinity, -Double.infinity, -1, 1e300, 1e-9, 0.999_999_9])
        func oddIdleTimesAndDelaysServe(idle: Double) throws {
            let delays: [Double] = [.nan, -1, -Double.infinity, -Double.greatestFiniteMagnitude, 0]
            let server = LoopbackServer(idleTimeout: idle) { request in
                let delay = delays[Int(request.target.dropFirst()) ?? 0]
                return .stream(
                    LoopbackStream(chunks: [Data("a".utf8), Data("b".utf8)], delay: delay, delaysHead: true))
            }
            try server.start()
            for index in delays.indices {
                let client = try RawConnection(port: server.port)
                try client.send("GET /\(index) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                let response = try client.readResponse()
                // A nanosecond of idleness may close the connection before the client sent anything: not a bug.
                if idle > 1e-6 { #expect(response.map { String(decoding: $0.body, as: UTF8.self) } == "ab") }
            }
            server.stop()
            #expect(server.openConnections == 0)
        }
    }
}

/// The state of `stopFromATaskAHandlerSpawnedWaitsForEveryThread`, shared with the task its handler spawns.
final class SpawnedStopProbe: Sendable {
    let release = DispatchSemaphore(value: 0)
    let stopped = DispatchSemaphore(value: 0)
    let box = Mutex<LoopbackServer?>(nil)
    let blockedEntered = Atomic<Bool>(false)
    let blockedReturned = Atomic<Bool>(false)
    let stopReturned = Atomic<Bool>(false)
    let waitedForBlocked = Atomic<Bool>(false)

    /// Stops the server, then notes whether the blocked handler had returned by then.
    func stopFromTask() {
        box.withLock { $0 }?.stop()
        waitedForBlocked.store(blockedReturned.load(ordering: .acquiring), ordering: .releasing)
        stopReturned.store(true, ordering: .releasing)
        stopped.signal()
    }
}
