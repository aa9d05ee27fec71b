import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Testing

/// The adapter's idle timeout: one watchdog per request that every piece stamps, ending a stalled exchange and
/// re-arming for the time left while pieces keep coming.
@Suite(.timeLimit(.minutes(1))) struct IdleWatchdogTests {
    /// A body whose pieces come 0.25 s apart for 2.75 s in all is never idle for 1.5 s: the watchdog, armed once, fires
    /// after 1.5 s, finds a recent stamp and re-arms for the rest, again and again. (The gap is a sixth of the idle
    /// time, so a loaded machine that delays a piece by a second does not end the body.)
    @Test func aBodyThatKeepsComingOutlivesTheIdleTimeout() async throws {
        let chunks = Array(repeating: Data("x".utf8), count: 12)
        let server = LoopbackServer(synchronousHandler: { _ in
            .stream(LoopbackStream(chunks: chunks, delay: 0.25, declaresLength: false))
        })
        try server.start()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(idleTimeout: 1.5))
        let clock = ContinuousClock()
        let started = clock.now
        let response = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("trickle")))
        #expect(response.body == Data(repeating: UInt8(ascii: "x"), count: 12))
        #expect(clock.now - started >= .milliseconds(2_750), "the body came faster than the test assumes")
        try await transport.shutdown()
    }

    /// A body that stops after its first piece ends with the idle timeout, not with the (much later) deadline.
    @Test func aBodyThatStopsEndsWithTheIdleTimeout() async throws {
        let server = LoopbackServer(synchronousHandler: { _ in
            .download(LoopbackDownload(length: 1 << 20, stallAfter: 1_000))
        })
        try server.start()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(idleTimeout: 1))
        let clock = ContinuousClock()
        let started = clock.now
        let error = await #expect(throws: CRUDError.self) {
            try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("stall")))
        }
        guard case .timedOut(.idle(1))? = error else {
            Issue.record("expected timedOut(.idle(1)), got \(String(describing: error))")
            return
        }
        #expect(clock.now - started < .seconds(10))
        try await transport.shutdown()
    }

    /// A request's own timeout is its idle time.
    @Test func aRequestsOwnTimeoutIsItsIdleTime() async throws {
        let server = LoopbackServer(synchronousHandler: { _ in .fault(.neverAnswer) })
        try server.start()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(idleTimeout: 30))
        let clock = ContinuousClock()
        let started = clock.now
        let error = await #expect(throws: CRUDError.self) {
            try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("x"), timeout: 0.5))
        }
        guard case .timedOut(.idle(0.5))? = error else {
            Issue.record("expected timedOut(.idle(0.5)), got \(String(describing: error))")
            return
        }
        #expect(clock.now - started < .seconds(10))
        try await transport.shutdown()
    }

    /// Cancelling the caller's task still ends the request as cancelled, not as a timeout.
    @Test func cancellingTheCallerIsACancellation() async throws {
        let server = LoopbackServer(synchronousHandler: { _ in .fault(.neverAnswer) })
        try server.start()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(idleTimeout: 30))
        let request = HTTPRequest(url: server.baseURL.appendingPathComponent("x"))
        let task = Task { try await transport.send(request) }
        let clock = ContinuousClock()
        let limit = clock.now.advanced(by: .seconds(10))
        while server.connectionsAccepted == 0 && clock.now < limit { await Task.yield() }
        task.cancel()
        let error = await #expect(throws: CRUDError.self) { try await task.value }
        #expect(error?.isCancelled == true, "\(String(describing: error))")
        try await transport.shutdown()
    }
}

extension IdleWatchdogTests {
    /// One timer serves all of a transport's exchanges: a short idle time that starts while a long one is watched
    /// still ends at its own time, and so does the next one after it, while the long exchange goes on.
    @Test func shortIdleTimesEndOnTimeBesideALongOne() async throws {
        let server = LoopbackServer(synchronousHandler: { _ in .fault(.neverAnswer) })
        try server.start()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(idleTimeout: 30))
        let long = Task {
            try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("long"), timeout: 40))
        }
        let clock = ContinuousClock()
        let limit = clock.now.advanced(by: .seconds(10))
        while server.connectionsAccepted == 0 && clock.now < limit { await Task.yield() }
        for name in ["first", "second"] {
            let started = clock.now
            let error = await #expect(throws: CRUDError.self) {
                try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent(name), timeout: 0.5))
            }
            guard case .timedOut(.idle(0.5))? = error else {
                Issue.record("\(name): expected timedOut(.idle(0.5)), got \(String(describing: error))")
                return
            }
            #expect(clock.now - started < .seconds(10), "\(name) waited for the long exchange's idle time")
        }
        long.cancel()
        let error = await #expect(throws: CRUDError.self) { try await long.value }
        #expect(error?.isCancelled == true, "\(String(describing: error))")
        try await transport.shutdown()
    }
}

extension IdleWatchdogTests {
    /// A request sent whole waits for its head under the earlier of its deadline and its idle time (one deadline
    /// AsyncHTTPClient keeps, no watchdog yet), and the error names the one that ran out.
    @Test func aHeadThatNeverComesEndsAtTheEarlierLimit() async throws {
        let server = LoopbackServer(synchronousHandler: { _ in .fault(.neverAnswer) })
        try server.start()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(idleTimeout: 30))
        let url = server.baseURL.appendingPathComponent("x")
        let clock = ContinuousClock()
        var started = clock.now
        let deadlineFirst = await #expect(throws: CRUDError.self) {
            try await transport.send(HTTPRequest(url: url, body: .data(Data("x".utf8)), deadline: 0.5))
        }
        guard case .timedOut(.deadline(0.5))? = deadlineFirst else {
            Issue.record("expected timedOut(.deadline(0.5)), got \(String(describing: deadlineFirst))")
            return
        }
        #expect(clock.now - started < .seconds(10))
        started = clock.now
        let idleFirst = await #expect(throws: CRUDError.self) {
            try await transport.send(HTTPRequest(url: url, timeout: 0.5, deadline: 30))
        }
        guard case .timedOut(.idle(0.5))? = idleFirst else {
            Issue.record("expected timedOut(.idle(0.5)), got \(String(describing: idleFirst))")
            return
        }
        #expect(clock.now - started < .seconds(10))
        try await transport.shutdown()
    }
}
