import AsyncHTTPClient
import CRUDKit
import Foundation
import NIOCore
import Testing

@testable import CRUDKitAsyncHTTPClient

#if os(Linux)
import Glibc

/// Connection failures through a client passed to `init(client:)`, whose settings the transport does
/// not choose (`HTTPClient.shared` retries connection establishment, with a 10 s connect timeout).
@Suite(.timeLimit(.minutes(1))) struct PassedInClientConnectTests {
    /// A port on 127.0.0.1 where nothing listens: a socket bound to it that never listens, so a connection there is
    /// refused, and the port stays reserved until the caller closes `descriptor` (closing it at once, as before, let
    /// a server of a test running beside this one take the port, and the connection was answered).
    static func refusedPort() throws -> (port: Int, descriptor: Int32) {
        let (descriptor, address) = try ConnectTimeoutTests.boundSocket()
        return (Int(UInt16(bigEndian: address.sin_port)), descriptor)
    }

    /// A known difference, pinned (LinuxServers.md says it): a refused connection through `HTTPClient.shared` (as
    /// the transport's documentation suggests passing) and through URLSession. URLSession says
    /// `transport(cannotConnect)` at once (and `RetryPolicy` retries it whatever the method); the shared client
    /// keeps retrying to establish the connection, as its `retryConnectionEstablishment` says, and the transport's
    /// idle watchdog ends the request: `timedOut(idle(2.0))` after 2 s. (The red team filed it as a bug: the same
    /// fault ends two ways. The client you pass in is yours to configure; an owned client fails at once.)
    @Test func aRefusedConnectionThroughTheSharedClientEndsByTheIdleTime() async throws {
        let idle = 2.0
        let (port, reserved) = try Self.refusedPort()
        defer { close(reserved) }
        let url = URL(string: "http://127.0.0.1:\(port)/people")!
        var seen: [String] = []
        let transports: [(String, any ResumableTransport)] = [
            ("ahc shared", AsyncHTTPClientTransport(client: .shared, configuration: .init(idleTimeout: idle))),
            ("urlsession", URLSessionTransport(configuration: .init(idleTimeout: idle))),
        ]
        for (name, transport) in transports {
            let (outcome, seconds) = await HangingConnectTests.attempt(
                transport, "collected", HTTPRequest(url: url))
            // "at once" for an end well before the idle time, "later" for one at or after it.
            seen.append("\(name): \(outcome) \(seconds < idle * 0.75 ? "at once" : "later")")
        }
        #expect(
            seen == ["ahc shared: timedOut(idle(2.0)) later", "urlsession: transport(cannot connect) at once"],
            "\(seen)")
    }
}
#endif
