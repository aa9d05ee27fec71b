import CRUDKit
import Foundation

// The contract's checks that a write the server may have acted on is never sent a second time by the transport
// itself: only a retry policy above it, which knows the request is idempotent or carries an `Idempotency-Key`,
// may repeat it.

extension TransportContract {
    /// A `POST` (with and without a body) and a `PATCH` without an `Idempotency-Key`, sent after a GET left a
    /// keep-alive connection open, reach the server once when the server reads the write whole and closes the
    /// connection without answering: the transport answers with what the server did (an error, or the answer of
    /// the one write it sent), and never opens another connection to send the write again.
    ///
    /// An HTTP client that resends a request on a fresh connection when a reused one dies before any answer (libcurl
    /// does, and so FoundationNetworking's URLSession) creates a second record on the server; with a body it resends
    /// the head alone and waits for the idle timeout.
    var writesAreSentOnce: Check {
        Check(name: "a write on a dropped keep-alive connection is sent once") {
            let writes: [(HTTPMethod, Data?)] = [
                (.post, nil), (.post, Data("{\"name\":\"Ada\"}".utf8)), (.patch, Data("{\"name\":\"Grace\"}".utf8)),
            ]
            for (method, body) in writes {
                try await sendOnDroppedConnection(method, body: body)
            }
        }
    }

    /// Warms a keep-alive connection with a GET, then sends `method` with `body`; the server closes the connection
    /// after reading the first write whole and answers 201 to any later one.
    private func sendOnDroppedConnection(_ method: HTTPMethod, body: Data?) async throws {
        let dropped = Locked(false)
        let server = LoopbackServer(synchronousHandler: { request in
            guard request.method != "GET" else { return .response(HTTPResponse(status: 200, body: Data("warm".utf8))) }
            let first = dropped.withLock { dropped in
                defer { dropped = true }
                return !dropped
            }
            return first ? .fault(.closeBeforeStatusLine) : .response(HTTPResponse(status: 201))
        })
        try server.start()
        defer { server.stop() }
        let transport = makeTransport(Settings(idleTimeout: 3))
        let warm = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("warm")))
        try Self.expect(warm.status == 200, "the warming GET answered \(warm.status)")
        let write = HTTPRequest(
            method: method, url: server.baseURL.appendingPathComponent("people"),
            headers: body == nil ? [:] : ["Content-Type": "application/json"], body: body.map { .data($0) } ?? .none)
        let outcome: String
        do {
            outcome = "status \(try await transport.send(write).status)"
        } catch let error as CRUDError {
            outcome = "\(error)"
        }
        let received = server.requests.filter { $0.method == method.rawValue }
        let what = "\(method)\(body == nil ? " without a body" : " with a body")"
        try Self.expect(
            received.count == 1,
            "the server received the \(what) \(received.count) times (the transport answered \(outcome))")
        let connection = received[0].connection
        try Self.expect(
            server.connectionsAccepted <= connection,
            "after the \(what) arrived on connection \(connection) and was dropped, the transport opened "
                + "\(server.connectionsAccepted - connection) more connection(s) to send it again (answered \(outcome))"
        )
    }
}
