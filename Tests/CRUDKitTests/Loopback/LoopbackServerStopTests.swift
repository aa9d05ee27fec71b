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
    /// `stop()` racing connections that are still arriving. The accept loop used to close its wake pipe's read end
    /// when it saw the server stopping on a fresh connection, while `stop()` had yet to write its wake-up byte
    /// there: that write raised SIGPIPE and killed the whole test process (seen once in CI under AddressSanitizer).
    @Suite struct LoopbackServerStopTests {
        /// Opens up to `count` connections to `port` without waiting for any (non-blocking connects land in the
        /// listen backlog), while `going` holds; returns their descriptors, for the caller to close.
        private static func flood(_ port: Int, count: Int, while going: borrowing Atomic<Bool>) -> [Int32] {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var opened: [Int32] = []
            for _ in 0..<count where going.load(ordering: .acquiring) {
                #if canImport(Darwin)
                let descriptor = socket(AF_INET, SOCK_STREAM, 0)
                _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
                #else
                let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                #endif
                guard descriptor >= 0 else { break }
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                opened.append(descriptor)
            }
            return opened
        }

        /// 20 rounds in `swift test`; `.ci/stress.sh` runs them for a time (the race killed the process within 200).
        @Test(.timeLimit(.minutes(TestEnvironment.minutes(1))))
        func stoppingWhileConnectionsArriveEndsCleanly() throws {
            try stopAmidAConnectionFlood(.quick(20))
        }

        @Test(.enabled(if: StressRounds.enabled, StressRounds.skipReason), StressRounds.timeLimit)
        func stoppingWhileConnectionsArriveEndsCleanlyUnderStress() throws {
            try stopAmidAConnectionFlood(.timed)
        }

        /// Starts a server, floods it with connections and stops it while they arrive, for each of `rounds`.
        private func stopAmidAConnectionFlood(_ rounds: StressRounds) throws {
            for _ in rounds {
                let server = LoopbackServer { _ in .response(HTTPResponse(status: 200)) }
                try server.start()
                let port = server.port
                let flooding = Atomic<Bool>(true)
                let opened = Mutex<[Int32]>([])
                let done = DispatchSemaphore(value: 0)
                // Connections keep landing in the backlog, so the accept loop is busy accepting when `stop()`
                // comes. At most 64 per round, none waited for: the round takes milliseconds however loaded the
                // machine is.
                let flooder = Thread {
                    let descriptors = Self.flood(port, count: 64, while: flooding)
                    opened.withLock { $0 = descriptors }
                    done.signal()
                }
                flooder.start()
                for _ in 0..<Int.random(in: 0..<200) { sched_yield() }
                server.stop()
                flooding.store(false, ordering: .releasing)
                done.wait()
                for descriptor in opened.withLock({ $0 }) { close(descriptor) }
                #expect(server.openConnections == 0)
            }
        }

        /// `stop()` from an async handler (run in a task, not on the connection's thread) returns at once, and the
        /// server ends once the handler returned: its listener closed, no connection left.
        @Test func stopFromAnAsyncHandlerReturnsAndTheServerEnds() throws {
            let box = Mutex<LoopbackServer?>(nil)
            let server = LoopbackServer { _ in
                box.withLock { $0 }?.stop()
                return .response(HTTPResponse(status: 200))
            }
            box.withLock { $0 = server }
            try server.start()
            let listener = try #require(server.socketInodes.first)
            let client = try RawConnection(port: server.port)
            try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try client.readToEnd()
            let clock = ContinuousClock()
            let end = clock.now + .seconds(10)
            while clock.now < end, server.openConnections > 0 || openSocketInodes().contains(listener) {
                sched_yield()
            }
            #expect(server.openConnections == 0)
            #expect(!openSocketInodes().contains(listener), "the listener stayed open")
            box.withLock { $0 = nil }
        }

        /// A stream whose pieces are an infinite delay apart waits for the client or `stop()`; it trapped converting
        /// the delay to nanoseconds.
        @Test func aStreamDelayedForeverWaitsUntilStop() throws {
            let server = LoopbackServer { _ in
                .stream(LoopbackStream(chunks: [Data("a".utf8), Data("b".utf8)], delay: .infinity))
            }
            try server.start()
            let client = try RawConnection(port: server.port)
            try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            // The head and the first piece, then nothing until the connection ends.
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4_096)
            while !String(decoding: received, as: UTF8.self).hasSuffix("\r\n\r\na") {
                let count = chunk.withUnsafeMutableBytes { recv(client.descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { break }
                received += chunk[0..<count]
            }
            #expect(String(decoding: received, as: UTF8.self).hasSuffix("\r\n\r\na"))
            server.stop()
            #expect(try client.readToEnd().isEmpty, "nothing after the first piece")
            #expect(server.openConnections == 0)
        }
    }
}
