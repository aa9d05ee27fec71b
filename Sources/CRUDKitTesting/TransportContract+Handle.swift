import CRUDKit
import Foundation

// The checks of `RequestHandle` over a transport: pause and resume of a GET mid-body, restart when the server
// cannot continue, a write on the wire that refuses to pause, and cancellation.

extension TransportContract {
    /// A `GET` paused mid-body resumes with `Range` and `If-Range` and ends with exactly the server's body.
    public var handlePauseResume: Check {
        Check(name: "request handle: paused GET resumes byte-exact with Range") {
            try await Self.withServer(Self.handleSettings, contract: self) { _ in
                .download(LoopbackDownload(length: Self.handleLength, stallAfter: Self.handleStall))
            } body: { server, transport in
                try Self.expect(
                    transport is any ResumableTransport,
                    "\(type(of: transport)) is not a ResumableTransport: a paused GET starts over")
                let body = try await Self.pauseAndResume(server, transport)
                try Self.expect(body == LoopbackDownload.bytes(0..<Self.handleLength), "the body is not the server's")
                let requests = server.requests
                try Self.expect(requests.count == 2, "\(requests.count) requests, expected 2")
                let range = requests.last?.headers["Range"] ?? "none"
                try Self.expect(
                    range.hasPrefix("bytes=") && range != "bytes=0-", "the resumed request asked for range \(range)")
                try Self.expect(
                    requests.last?.headers["If-Range"] == "\"loopback-v1\"", "the resumed request had no If-Range")
            }
        }
    }

    /// A `GET` paused mid-body against a server that ignores ranges starts over and still ends byte-exact.
    public var handleRestart: Check {
        Check(name: "request handle: paused GET restarts when the server ignores Range") {
            try await Self.withServer(Self.handleSettings, contract: self) { _ in
                .download(
                    LoopbackDownload(length: Self.handleLength, honoursRanges: false, stallAfter: Self.handleStall))
            } body: { server, transport in
                let body = try await Self.pauseAndResume(server, transport)
                try Self.expect(body == LoopbackDownload.bytes(0..<Self.handleLength), "the body is not the server's")
                try Self.expect(server.requests.count == 2, "\(server.requests.count) requests, expected 2")
            }
        }
    }

    /// A `POST` the server is reading cannot be paused: `pause()` says so and the write completes.
    public var handleWriteNotPausable: Check {
        Check(name: "request handle: a write on the wire refuses to pause") {
            let (arrived, signalArrival) = AsyncStream.makeStream(of: Void.self)
            let (gate, openGate) = AsyncStream.makeStream(of: Void.self)
            let server = LoopbackServer(handler: { _ in
                signalArrival.yield()
                for await _ in gate { break }
                return .response(HTTPResponse(status: 201, body: Data("{}".utf8)))
            })
            try server.start()
            defer { server.stop() }
            let api = API(baseURL: server.baseURL, transport: makeTransport(Self.handleSettings))
            let handle = api.handle(for: Request(.post, "people", body: .data(Data("{}".utf8)), decoder: .response))
            try await Self.first(of: arrived, "the POST never reached the server")
            let outcome = handle.pause()
            openGate.yield()
            let response = try await handle.value
            guard case .notPausable(let reason) = outcome else { throw Failure("a POST on the wire was paused") }
            try Self.expect(reason.contains("POST"), "the refusal does not name the POST: \(reason)")
            try Self.expect(response.status == 201, "status \(response.status), expected 201")
        }
    }

    /// `cancel()` during a stalled body ends the request with ``CRUDError/cancelled``.
    public var handleCancel: Check {
        Check(name: "request handle: cancel ends with CRUDError.cancelled") {
            try await Self.withServer(Self.handleSettings, contract: self) { _ in
                .download(LoopbackDownload(length: Self.handleLength, stallAfter: Self.handleStall))
            } body: { server, transport in
                let (handle, reached) = Self.stalledGET(server, transport)
                try await Self.first(of: reached, "no byte of the body arrived")
                handle.cancel()
                try await Self.expectError("cancelled") {
                    try await handle.value
                } matches: {
                    $0.isCancelled
                }
            }
        }
    }

    // MARK: - Helpers

    static let handleLength = 2 << 20
    static let handleStall = 1 << 20
    /// Settings whose maximum response size holds the whole body.
    static let handleSettings = Settings(maximumResponseSize: 8 << 20)

    /// A `GET` through a handle whose observer signals at the first bytes received: the body stalls after
    /// ``handleStall`` bytes, so a pause from then on lands mid-body (a throttled observer may hold later reports
    /// back until the body moves again, which a stalled body never does).
    private static func stalledGET(
        _ server: LoopbackServer, _ transport: any Transport
    )
        -> (RequestHandle<HTTPResponse>, AsyncStream<Void>)
    {
        let api = API(baseURL: server.baseURL, transport: transport)
        let (reached, signal) = AsyncStream.makeStream(of: Void.self)
        var request = Request(.get, "file", decoder: .response)
        request.observer = TransferObserver(download: {
            if $0.completedBytes > 0 { signal.yield() }
        })
        return (api.handle(for: request), reached)
    }

    /// Pauses a stalled `GET` mid-body, resumes it, and answers its body.
    private static func pauseAndResume(_ server: LoopbackServer, _ transport: any Transport) async throws -> Data {
        let (handle, reached) = stalledGET(server, transport)
        try await first(of: reached, "no byte of the body arrived")
        guard handle.pause() == .paused else { throw Failure("a GET mid-body refused to pause") }
        handle.resume()
        return try await handle.value.body
    }

    /// Waits for the first element of `stream`, at most 10 seconds.
    static func first(of stream: AsyncStream<Void>, _ message: String) async throws {
        let arrived = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in stream { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !arrived { throw Failure(message) }
    }
}
