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

        @Test(.timeLimit(.minutes(TestEnvironment.minutes(1))))
        func stoppingWhileConnectionsArriveEndsCleanly() throws {
            for _ in 0..<1_000 {
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
    }
}
