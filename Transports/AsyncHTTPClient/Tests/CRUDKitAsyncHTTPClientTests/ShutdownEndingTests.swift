import AsyncHTTPClient
import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import CRUDKitAsyncHTTPClient

/// `shutdown()` with requests in flight: each request it ends — on the wire, waiting at the connection gate, or
/// sent afterwards — fails with one error that says the transport was shut down, which no retry policy retries.
@Suite(.timeLimit(.minutes(2))) struct ShutdownEndingTests {
    /// Whether `error` is the shutdown's.
    private static func isShutDown(_ error: (any Error)?) -> Bool {
        if case CRUDError.transport(let failure)? = error { return failure.reason == .shutDown }
        return false
    }

    /// Holds every request until ``open()``: the server's `stop()` waits for its handlers, so they must return.
    final class Hold: Sendable {
        private let state = NIOLockedValueBox((open: false, waiting: [CheckedContinuation<Void, Never>]()))

        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLockedValue { state -> Bool in
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func open() {
            let waiting = state.withLockedValue { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    @Test func aThousandRequestsInFlightAllEndAsShutDownAndNoneIsRetried() async throws {
        // Given a server that holds every request, and 1,000 requests through an API that retries everything
        let arrived = NIOLockedValueBox(0)
        let hold = Hold()
        let server = LoopbackServer { _ in
            arrived.withLockedValue { $0 += 1 }
            await hold.wait()
            return HTTPResponse(status: 200)
        }
        try server.start()
        defer {
            hold.open()
            server.stop()
        }
        let transport = AsyncHTTPClientTransport()
        let attempts = NIOLockedValueBox(0)
        let policy = RetryPolicy(maxAttempts: 5, initialDelay: .zero, jitter: 0)
        let api = API(baseURL: server.baseURL, transport: transport).with {
            $0.middleware.insert(RetryMiddleware(policy: policy))
            $0.middleware.insert(
                .intercept("count") { request, context, next in
                    attempts.withLockedValue { $0 += 1 }
                    return try await next(request, context)
                }, after: .retry)
        }
        let requests = (0..<1_000).map { n in
            Task { () -> (any Error)? in
                do {
                    _ = try await api.send(Request(.get, "held/\(n)", decoder: .response))
                    return nil
                } catch {
                    return error
                }
            }
        }
        // When the transport shuts down with the connections busy and the rest queued at the gate
        await ConnectionGateTests.eventually { arrived.withLockedValue { $0 } >= 32 }
        try await transport.shutdown()
        var errors: [(any Error)?] = []
        for request in requests { errors.append(await request.value) }
        // Then every request ended with the shutdown's error, each after one attempt
        let shutDown = errors.filter { Self.isShutDown($0) }.count
        let others = errors.filter { !Self.isShutDown($0) }.prefix(3).map { "\(String(describing: $0))" }
        #expect(shutDown == 1_000, "\(1_000 - shutDown) ended otherwise, such as \(others)")
        #expect(attempts.withLockedValue { $0 } == 1_000, "a request that shutdown ended was sent again")
        let message = errors.first.flatMap { $0.map { "\($0)" } } ?? ""
        #expect(message.contains("shut down"), "the error does not say so: \(message)")
    }

    @Test func aRequestAfterShutdownFailsTheSameWayAtOnce() async throws {
        let transport = AsyncHTTPClientTransport()
        try await transport.shutdown()
        let error = await #expect(throws: CRUDError.self) {
            try await transport.send(HTTPRequest(url: URL(string: "http://127.0.0.1:9/")!))
        }
        #expect(Self.isShutDown(error))
        // Through an API retrying with the standard policy: one attempt, the same error.
        let attempts = NIOLockedValueBox(0)
        let api = API(baseURL: URL(string: "http://127.0.0.1:9")!, transport: transport).with {
            $0.middleware.insert(RetryMiddleware(policy: .standard))
            $0.middleware.insert(
                .intercept("count") { request, context, next in
                    attempts.withLockedValue { $0 += 1 }
                    return try await next(request, context)
                }, after: .retry)
        }
        let viaAPI = await #expect(throws: CRUDError.self) {
            try await api.send(Request(.get, "x", decoder: .response))
        }
        #expect(Self.isShutDown(viaAPI))
        #expect(attempts.withLockedValue { $0 } == 1)
    }

    @Test func newRequestsFromEightTasksRacingShutdownEachEndOnceAndNoneHangs() async throws {
        // Given a server answering at once, and 8 tasks each sending requests through a retrying API
        let server = LoopbackServer(recordsRequests: false) { _ in .response(HTTPResponse(status: 200)) }
        try server.start()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport()
        let attempts = NIOLockedValueBox(0)
        let api = API(baseURL: server.baseURL, transport: transport).with {
            $0.middleware.insert(RetryMiddleware(policy: RetryPolicy(maxAttempts: 5, initialDelay: .zero, jitter: 0)))
            $0.middleware.insert(
                .intercept("count") { request, context, next in
                    attempts.withLockedValue { $0 += 1 }
                    return try await next(request, context)
                }, after: .retry)
        }
        let answered = NIOLockedValueBox(0)
        let senders = (0..<8).map { sender in
            Task { () -> [String] in
                var odd: [String] = []
                for n in 0..<100 {
                    do {
                        _ = try await api.send(Request(.get, "race/\(sender)/\(n)", decoder: .response))
                        answered.withLockedValue { $0 += 1 }
                    } catch {
                        if !Self.isShutDown(error) { odd.append("\(error)") }
                    }
                }
                return odd
            }
        }
        // When the transport shuts down while they send
        await ConnectionGateTests.eventually { answered.withLockedValue { $0 } >= 40 }
        try await transport.shutdown()
        var odd: [String] = []
        for sender in senders { odd += await sender.value }
        // Then every request either was answered or ended as shut down, after one attempt each
        #expect(odd.isEmpty, "ended otherwise: \(odd.prefix(3))")
        #expect(attempts.withLockedValue { $0 } == 800, "a request was sent again")
    }
}
