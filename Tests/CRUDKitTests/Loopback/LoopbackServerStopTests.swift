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
        @Test(.timeLimit(.minutes(TestEnvironment.minutes(1))))
        func stoppingWhileConnectionsArriveEndsCleanly() throws {
            for _ in 0..<200 {
                let server = LoopbackServer { _ in .response(HTTPResponse(status: 200)) }
                try server.start()
                let port = server.port
                let flooding = Atomic<Bool>(true)
                let done = DispatchSemaphore(value: 0)
                let flooder = Thread {
                    while flooding.load(ordering: .acquiring) {
                        // Connections keep landing in the backlog, so the accept loop is busy accepting when
                        // `stop()` comes; a refused connect (the listener closed) ends the flood too.
                        guard (try? RawConnection(port: port)) != nil else { break }
                    }
                    done.signal()
                }
                flooder.start()
                for _ in 0..<Int.random(in: 0..<200) { sched_yield() }
                server.stop()
                flooding.store(false, ordering: .releasing)
                done.wait()
                #expect(server.openConnections == 0)
            }
        }
    }
}
