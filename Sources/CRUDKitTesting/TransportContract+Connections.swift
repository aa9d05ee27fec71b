import CRUDKit
import Foundation

// The contract's checks of how a body may end (by closing the connection) and of what a cancelled request leaves
// behind (nothing: its connection is closed).

extension TransportContract {
    /// A body without Content-Length or chunked coding, ended by the server closing the connection, is read whole.
    var closeDelimitedBody: Check {
        Check(name: "close-delimited body") {
            let body = String(repeating: "close-delimited ", count: 4_000)
            let raw = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n" + body
            try await Self.withServer(contract: self) { _ in
                .fault(.raw(Data(raw.utf8)))
            } body: { server, transport in
                let response = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("c")))
                try Self.expect(response.status == 200, "status \(response.status)")
                try Self.expect(
                    response.body == Data(body.utf8),
                    "the body arrived as \(response.body.count) bytes, expected \(body.utf8.count)")
            }
        }
    }

    /// Cancelling a request in flight closes its connection: the server sees it go within seconds.
    var cancellationReleasesTheConnection: Check {
        Check(name: "cancellation closes the connection") {
            try await Self.withServer(contract: self) { _ in
                .fault(.neverAnswer)
            } body: { server, transport in
                let task = Task {
                    try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("w")))
                }
                let clock = ContinuousClock()
                var limit = clock.now.advanced(by: .seconds(10))
                // In flight: the server has the request. (Cancelling while the connection is still being set up
                // may leave a healthy new connection in the client's pool, which is not this check's subject.)
                while server.requests.isEmpty && clock.now < limit { await Task.yield() }
                task.cancel()
                _ = try? await task.value
                limit = clock.now.advanced(by: .seconds(5))
                while server.openConnections > 0 && clock.now < limit { await Task.yield() }
                try Self.expect(
                    server.openConnections == 0,
                    "\(server.openConnections) connection(s) still open 5 s after the request was cancelled")
            }
        }
    }
}
