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
    /// `LoopbackServer.stop()` (the wake pipe now closed by the last thread to end) against
    /// second and concurrent stops, a stop from a handler, a full server, a slow stream, start after stop,
    /// `stop()` racing `start()`, and descriptor leaks over 1,000 cycles. (A started server dropped without
    /// `stop()` is not stopped, as `stop()`'s documentation now says: its threads keep it alive.)
    @Suite(.timeLimit(.minutes(TestEnvironment.minutes(2)))) struct LoopbackServerStopConcurrencyTests {
        /// FIXED: `stop()` promises to return "once every thread has ended" and to be "safe to call more
        /// than once", but a second `stop()` made while the first is still waiting for a connection thread (its
        /// handler busy) returns at once, with the connection thread still running and its connection still open.
        @Test func aSecondStopReturnsOnlyOnceEveryThreadEnded() throws {
            let release = DispatchSemaphore(value: 0)
            let entered = Atomic<Bool>(false)
            let handlerReturned = Atomic<Bool>(false)
            let server = LoopbackServer(synchronousHandler: { _ in
                entered.store(true, ordering: .releasing)
                release.wait()
                handlerReturned.store(true, ordering: .releasing)
                return .response(HTTPResponse(status: 200))
            })
            try server.start()
            let client = try RawConnection(port: server.port)
            try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            let handlerEntered = eventually(10) { entered.load(ordering: .acquiring) }
            #expect(handlerEntered)

            let firstDone = DispatchSemaphore(value: 0)
            Thread {
                server.stop()
                firstDone.signal()
            }.start()
            // The first stop() has begun once it shut the connection down: the client reads the end.
            #expect((try? client.readToEnd()) != nil)

            let secondReturned = Atomic<Bool>(false)
            let handlerEndedBeforeSecond = Atomic<Bool>(false)
            let secondDone = DispatchSemaphore(value: 0)
            Thread {
                server.stop()
                handlerEndedBeforeSecond.store(handlerReturned.load(ordering: .acquiring), ordering: .releasing)
                secondReturned.store(true, ordering: .releasing)
                secondDone.signal()
            }.start()
            // Give a wrong early return every chance to show, then let the handler end.
            _ = eventually(2) { secondReturned.load(ordering: .acquiring) }
            let openWhenSecondCouldReturn = server.openConnections
            release.signal()
            firstDone.wait()
            secondDone.wait()
            let secondWaited = handlerEndedBeforeSecond.load(ordering: .acquiring)
            #expect(
                secondWaited,
                """
                the second stop() returned while a connection thread was still running \
                (\(openWhenSecondCouldReturn) connection(s) open)
                """
            )
            #expect(server.openConnections == 0)
        }

        /// FIXED: `stop()` called from a handler (a test that takes the server away on some request) never
        /// returns: it waits for every connection thread to end, the calling one included. The connection thread
        /// stays blocked for the life of the process, with its socket open (shut down, never closed).
        @Test func stopFromAHandlerReturns() throws {
            let returned = Atomic<Bool>(false)
            let box = Mutex<LoopbackServer?>(nil)
            let server = LoopbackServer(synchronousHandler: { _ in
                box.withLock { $0 }?.stop()
                returned.store(true, ordering: .releasing)
                return .response(HTTPResponse(status: 200))
            })
            box.withLock { $0 = server }
            try server.start()
            let client = try RawConnection(port: server.port)
            try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            let stopReturned = eventually(5) { returned.load(ordering: .acquiring) }
            #expect(
                stopReturned, "stop() called from a handler had not returned after 5 s (it waits for its own thread)")
            box.withLock { $0 = nil }
        }

        /// Holds: eight threads stop a server at once while it is full (2 connections served, 2 more waiting in the
        /// backlog); every stop returns, nothing stays open, and another stop still does nothing.
        @Test func eightConcurrentStopsOfAFullServer() throws {
            for _ in 0..<50 {
                let server = LoopbackServer(maximumConnections: 2) { _ in .response(HTTPResponse(status: 200)) }
                try server.start()
                let clients = try (0..<4).map { _ in try RawConnection(port: server.port) }
                for client in clients.prefix(2) {
                    try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                    _ = try client.readResponse()
                }
                let inodes = server.socketInodes
                let group = DispatchGroup()
                for _ in 0..<8 {
                    group.enter()
                    Thread {
                        server.stop()
                        group.leave()
                    }.start()
                }
                #expect(group.wait(timeout: .now() + 10) == .success, "a stop() hung")
                server.stop()
                #expect(server.openConnections == 0)
                #expect(eventually(5) { openSocketInodes().isDisjoint(with: inodes) }, "a socket stayed open")
                withExtendedLifetime(clients) {}
            }
        }

        /// Holds: stop() during a stream that waits 30 s between pieces returns promptly, and the client sees the
        /// connection end.
        @Test func stopDuringASlowStreamReturnsPromptly() throws {
            let server = LoopbackServer { _ in
                .stream(LoopbackStream(chunks: [Data("a".utf8), Data("b".utf8)], delay: 30))
            }
            try server.start()
            let client = try RawConnection(port: server.port)
            try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(eventually(10) { server.requests.count == 1 })
            let clock = ContinuousClock()
            let started = clock.now
            server.stop()
            #expect(clock.now - started < .seconds(5))
            #expect((try? client.readToEnd()) != nil)
            #expect(server.openConnections == 0)
        }

        /// Holds: start() after stop() is refused (`EALREADY`, as documented); stop() before start() does nothing
        /// and the server still starts, serves and stops.
        @Test func startAfterStopIsRefusedAndStopBeforeStartIsNothing() throws {
            let stopped = LoopbackServer { _ in .response(HTTPResponse(status: 200)) }
            try stopped.start()
            stopped.stop()
            #expect(throws: POSIXError.self) { try stopped.start() }
            stopped.stop()

            let fresh = LoopbackServer { _ in .response(HTTPResponse(status: 204)) }
            fresh.stop()
            try fresh.start()
            let client = try RawConnection(port: fresh.port)
            try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse()?.status == 204)
            fresh.stop()
            #expect(fresh.openConnections == 0)
        }

        /// FIXED: stop() racing start() from another thread. When stop() runs after start() marked the
        /// server started but before it stored the listener and the wake pipe, stop() writes to no pipe (-1) and
        /// waits for no thread, and returns; start() then runs an accept loop nobody will wake: the listener (still
        /// accepting connections), the wake pipe and the accept thread stay open for good, and a later stop() does
        /// nothing (the server is already "stopping"). The stopping thread finds the window by calling start()
        /// itself until it is refused (`EALREADY`: the other start() has begun), then stop() at once.
        /// 100 rounds in `swift test` (the race showed in 1–3 rounds of 1,000); `.ci/stress.sh` runs them for a time.
        @Test func stopRacingStartLeavesNothingOpen() throws {
            try stopRacingStart(.quick(100))
        }

        @Test(.enabled(if: StressRounds.enabled, StressRounds.skipReason), StressRounds.timeLimit)
        func stopRacingStartLeavesNothingOpenUnderStress() throws {
            try stopRacingStart(.timed)
        }

        private func stopRacingStart(_ rounds: StressRounds) throws {
            var leaked: [String] = []
            for round in rounds where leaked.count < 3 {
                let server = LoopbackServer { _ in .response(HTTPResponse(status: 200)) }
                let go = Atomic<Bool>(false)
                let stopped = DispatchSemaphore(value: 0)
                Thread {
                    while !go.load(ordering: .acquiring) {}
                    // Refused once the other start() has marked the server started; started here otherwise.
                    _ = try? server.start()
                    server.stop()
                    stopped.signal()
                }.start()
                go.store(true, ordering: .releasing)
                _ = try? server.start()
                stopped.wait()
                server.stop()
                let listener = server.socketInodes.first ?? 0
                if !eventually(2, { !openSocketInodes().contains(listener) }) {
                    // The accept loop still runs: a connection is accepted, and then makes it see the server stopping
                    // (which also ends it, so the test process does not keep it).
                    let accepts = (try? RawConnection(port: server.port)) != nil
                    leaked.append("round \(round): port \(server.port) open\(accepts ? ", accepting" : "")")
                }
            }
            #expect(
                leaked.isEmpty,
                "the listener stayed open after stop() raced start(): \(leaked.prefix(5)) within \(rounds)")
        }

        /// Holds: start/stop cycles, each fourth serving one request, leave no descriptor behind (sockets and pipes
        /// counted in `/proc/self/fd`, with room for other suites running meanwhile): 100 cycles in `swift test`,
        /// as many as fit in the time under `.ci/stress.sh`.
        @Test func startStopCyclesLeakNoDescriptor() throws {
            try startStopCycles(.quick(100))
        }

        @Test(.enabled(if: StressRounds.enabled, StressRounds.skipReason), StressRounds.timeLimit)
        func startStopCyclesLeakNoDescriptorUnderStress() throws {
            try startStopCycles(.timed)
        }

        private func startStopCycles(_ rounds: StressRounds) throws {
            let pipesBefore = openPipes().count
            let descriptorsBefore = openDescriptorCount()
            var inodes: Set<UInt64> = []
            for cycle in rounds {
                let server = LoopbackServer { _ in .response(HTTPResponse(status: 200)) }
                try server.start()
                if cycle % 4 == 0 {
                    let client = try RawConnection(port: server.port)
                    try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                    _ = try client.readResponse()
                }
                server.stop()
                inodes.formUnion(server.socketInodes)
            }
            #expect(eventually(5) { openSocketInodes().isDisjoint(with: inodes) }, "a server socket stayed open")
            let pipes = openPipes().count - pipesBefore
            let descriptors = openDescriptorCount() - descriptorsBefore
            #expect(pipes < 20, "\(pipes) more pipes open after \(rounds)")
            #expect(descriptors < 40, "\(descriptors) more descriptors open after \(rounds)")
        }
    }
}
