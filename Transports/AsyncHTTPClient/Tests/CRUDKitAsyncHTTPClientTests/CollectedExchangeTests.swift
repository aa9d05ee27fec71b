import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKitAsyncHTTPClient

/// The path of `api.get`: a request sent whole whose answer is kept in memory, read on AsyncHTTPClient's event loop
/// without a task of its own. Its one watchdog keeps the idle time and the deadline over the head and the body; the
/// size limit and cancellation end the body mid-way.
@Suite(.timeLimit(.minutes(1))) struct CollectedExchangeTests {
    /// A body that stops after its first bytes ends at the deadline when that comes before the idle time (before,
    /// only AsyncHTTPClient's deadline for the head covered it: the body waited for the 30 s idle time).
    @Test func aStalledBodyEndsAtTheDeadline() async throws {
        let server = LoopbackServer(synchronousHandler: { _ in
            .download(LoopbackDownload(length: 1 << 20, stallAfter: 1_000))
        })
        try server.start()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(idleTimeout: 30))
        let clock = ContinuousClock()
        let started = clock.now
        let error = await #expect(throws: CRUDError.self) {
            try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("stall"), deadline: 1))
        }
        guard case .timedOut(.deadline(1))? = error else {
            Issue.record("expected timedOut(.deadline(1)), got \(String(describing: error))")
            return
        }
        #expect(clock.now - started < .seconds(10))
        try await transport.shutdown()
    }

    /// Cancelling the caller while the body is stalled ends the request as cancelled, well before the idle time.
    @Test func cancellingDuringAStalledBodyIsACancellation() async throws {
        let server = LoopbackServer(synchronousHandler: { _ in
            .download(LoopbackDownload(length: 1 << 20, stallAfter: 1_000))
        })
        try server.start()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(idleTimeout: 30))
        let request = HTTPRequest(url: server.baseURL.appendingPathComponent("stall"))
        let task = Task { try await transport.send(request) }
        let clock = ContinuousClock()
        let limit = clock.now.advanced(by: .seconds(10))
        // The server answers (the head and 1,000 bytes) as soon as it has read the request.
        while server.requests.isEmpty && clock.now < limit { await Task.yield() }
        let started = clock.now
        task.cancel()
        let error = await #expect(throws: CRUDError.self) { try await task.value }
        #expect(error?.isCancelled == true, "\(String(describing: error))")
        #expect(clock.now - started < .seconds(10))
        try await transport.shutdown()
    }

    /// A chunked body (no length to refuse it by up front) that passes the size limit fails with
    /// `responseTooLarge`; the next request through the transport gets its own answer.
    @Test func aBodyPastTheLimitFailsMidWay() async throws {
        let server = LoopbackServer(synchronousHandler: { request in
            if request.path.hasSuffix("small") {
                return .response(HTTPResponse(status: 200, body: Data("ok".utf8)))
            }
            return .stream(
                LoopbackStream(chunks: Array(repeating: Data(count: 4_096), count: 64), declaresLength: false))
        })
        try server.start()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumResponseSize: 10_000))
        let error = await #expect(throws: CRUDError.self) {
            try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("big")))
        }
        guard case .responseTooLarge(10_000)? = error else {
            Issue.record("expected responseTooLarge(limit: 10000), got \(String(describing: error))")
            return
        }
        let response = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("small")))
        #expect(response.status == 200)
        #expect(response.body == Data("ok".utf8))
        try await transport.shutdown()
    }

    /// Many answers collected at once (past `sameLoopLimit`, so spread over every event loop, with fewer connections
    /// than requests) each get their own body, and the count of answers being collected is back to zero after
    /// them and after a failed one.
    @Test func manyAtOnceEachGetTheirOwnAnswer() async throws {
        let server = LoopbackServer(synchronousHandler: { request in
            .response(HTTPResponse(status: 200, body: Data(request.path.utf8)))
        })
        try server.start()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 4))
        let base = server.baseURL
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let response = try await transport.send(
                        HTTPRequest(url: base.appendingPathComponent("item/\(index)")))
                    #expect(response.body == Data("/item/\(index)".utf8))
                }
            }
            try await group.waitForAll()
        }
        #expect(transport.collecting.withLockedValue { $0 } == 0)
        let refused = await #expect(throws: CRUDError.self) {
            try await transport.send(HTTPRequest(url: URL(string: "http://127.0.0.1:1/x")!))
        }
        #expect(refused != nil)
        #expect(transport.collecting.withLockedValue { $0 } == 0)
        try await transport.shutdown()
    }
}
