import AsyncHTTPClient
import CRUDKit
import Foundation
import NIOCore
import Testing

@testable import CRUDKitAsyncHTTPClient

#if os(Linux)
import Glibc

/// A host that never completes a connection, and what ends the wait. AsyncHTTPClient's connect timeout (10 s) was
/// reported as `timedOut(.idle(<idle timeout>))`: an idle timeout of 60 s failed after 10 s saying 60. Now the
/// request's own idle time and deadline end the connect, as through URLSession, and a connect timeout that comes
/// first (the owned client's 10 s, or that of a client you pass in) says so: `transport` with the reason
/// `.cannotConnect`.
@Suite(.timeLimit(.minutes(1))) struct ConnectTimeoutTests {
    /// A TCP socket bound to 127.0.0.1 at a port the system chooses, and its address (the port filled in).
    static func boundSocket() throws -> (descriptor: Int32, address: sockaddr_in) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) }
        }
        guard bound == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &size) }
        }
        return (descriptor, address)
    }

    /// A listener on 127.0.0.1 whose accept queue is full and never drained: Linux drops the SYN of any further
    /// connection, which then neither completes nor fails.
    final class Blackhole {
        let port: Int
        private var descriptors: [Int32] = []

        init() throws {
            var (listener, address) = try ConnectTimeoutTests.boundSocket()
            guard listen(listener, 0) == 0 else {
                close(listener)
                throw POSIXError(.EADDRINUSE)
            }
            let size = socklen_t(MemoryLayout<sockaddr_in>.size)
            port = Int(UInt16(bigEndian: address.sin_port))
            descriptors.append(listener)
            // Fill the queue: these connect (or stay pending) without ever being accepted.
            for _ in 0..<3 {
                let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, size) }
                }
                descriptors.append(filler)
            }
        }

        deinit { for descriptor in descriptors { close(descriptor) } }

        var url: URL { URL(string: "http://127.0.0.1:\(port)/people")! }
    }

    @Test func anOwnedClientsConnectTimeoutIsTenSecondsWhateverTheIdleTime() {
        for idle in [60, 0.5, -1, .infinity, .nan] {
            let settings = AsyncHTTPClientTransport.clientSettings(for: .init(idleTimeout: idle))
            #expect(settings.timeout.connect == .seconds(10), "idle \(idle)")
        }
    }

    /// Collected (`api.get`'s path) and streamed (a progress observer): each ends by its idle time, as such (the
    /// connect timeout would end it as `.cannotConnect`).
    @Test(arguments: [false, true])
    func aConnectionThatNeverCompletesEndsAtTheIdleTime(streamed: Bool) async throws {
        let hole = try Blackhole()
        let transport = AsyncHTTPClientTransport(configuration: .init(idleTimeout: 0.5))
        let observer = streamed ? TransferObserver(download: { _ in }) : .none
        await #expect {
            _ = try await transport.send(HTTPRequest(url: hole.url), observer: observer)
        } throws: { error in
            guard case .timedOut(.idle(let seconds))? = error as? CRUDError else { return false }
            return seconds == 0.5
        }
        try await transport.shutdown()
    }

    @Test func aClientYouPassInThatGivesUpConnectingSaysCannotConnect() async throws {
        let hole = try Blackhole()
        var settings = HTTPClient.Configuration(redirectConfiguration: .disallow)
        settings.timeout = .init(connect: .milliseconds(300), read: nil)
        settings.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
        let transport = AsyncHTTPClientTransport(client: client, configuration: .init(idleTimeout: 30))
        await #expect {
            _ = try await transport.send(HTTPRequest(url: hole.url))
        } throws: { error in
            guard case .transport(let failure)? = error as? CRUDError else { return false }
            return failure.reason == .cannotConnect
        }
        try await client.shutdown()
    }
}
#endif
