import AsyncHTTPClient
import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import NIOCore
import Testing

@testable import CRUDKitAsyncHTTPClient

/// The gate that keeps collected answers over plain HTTP within the owned client's connections per host: places up
/// to the limit, then waiters in order, each handed the loop of the answer that ended; a waiter cancelled or
/// abandoned (its idle time or deadline) leaves the queue, and nothing is kept once the last answer ended.
@Suite(.timeLimit(.minutes(1))) struct ConnectionGateTests {
    /// Waits (yielding, without sleeping) until `condition` holds; fails the test after 30 s.
    static func eventually(_ condition: () -> Bool) async {
        let clock = ContinuousClock()
        let end = clock.now + .seconds(30)
        while !condition(), clock.now < end { await Task.yield() }
        #expect(condition())
    }

    @Test func placesUpToTheLimitThenWaitersInOrderGetTheLoopOfTheAnswerThatEnded() async throws {
        let gate = ConnectionGate(limit: 2)
        let loops = HTTPClient.shared.eventLoopGroup.makeIterator().map { $0 }
        #expect(gate.enter("a:80"))
        #expect(gate.enter("a:80"))
        #expect(!gate.enter("a:80"))
        #expect(gate.enter("b:80"), "another host has places of its own")
        let first = Task { try await gate.wait("a:80", ticket: gate.ticket()) }
        await Self.eventually { gate.counts("a:80").waiting == 1 }
        let second = Task { try await gate.wait("a:80", ticket: gate.ticket()) }
        await Self.eventually { gate.counts("a:80").waiting == 2 }
        gate.leave("a:80", loop: loops.last)
        #expect(try await first.value === loops.last)
        gate.leave("a:80", loop: loops.first)
        #expect(try await second.value === loops.first)
        #expect(gate.counts("a:80") == (2, 0), "each waiter took over a place")
        for host in ["a:80", "a:80", "b:80"] { gate.leave(host, loop: nil) }
        #expect(gate.isIdle)
    }

    @Test func aWaiterCancelledLeavesTheQueueAndThrows() async throws {
        let gate = ConnectionGate(limit: 1)
        #expect(gate.enter("a:80"))
        let waiter = Task { try await gate.wait("a:80", ticket: gate.ticket()) }
        await Self.eventually { gate.counts("a:80").waiting == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(gate.counts("a:80") == (1, 0))
        gate.leave("a:80", loop: nil)
        #expect(gate.isIdle, "the place went back to the gate, not to the cancelled waiter")
    }

    @Test func aWaitAbandonedBeforeItStartsIsRefused() async throws {
        let gate = ConnectionGate(limit: 1)
        #expect(gate.enter("a:80"))
        let ticket = gate.ticket()
        gate.abandon(ticket, of: "a:80", because: CancellationError())
        await #expect(throws: CancellationError.self) { try await gate.wait("a:80", ticket: ticket) }
        gate.leave("a:80", loop: nil)
        #expect(gate.isIdle)
    }

    @Test func abandoningAWaitThatGotItsPlaceKeepsNothing() async throws {
        let gate = ConnectionGate(limit: 1)
        #expect(gate.enter("a:80"))
        let ticket = gate.ticket()
        let waiter = Task { try await gate.wait("a:80", ticket: ticket) }
        await Self.eventually { gate.counts("a:80").waiting == 1 }
        gate.leave("a:80", loop: nil)
        _ = try await waiter.value
        gate.abandon(ticket, of: "a:80", because: CancellationError())
        gate.leave("a:80", loop: nil)
        #expect(gate.isIdle)
    }

    @Test func onlyPlainHTTPIsGated() {
        #expect(AsyncHTTPClientTransport.gateKey(for: URL(string: "http://example.com/people")!) == "example.com:80")
        #expect(AsyncHTTPClientTransport.gateKey(for: URL(string: "HTTP://127.0.0.1:8080/a?b")!) == "127.0.0.1:8080")
        #expect(AsyncHTTPClientTransport.gateKey(for: URL(string: "https://example.com/people")!) == nil)
        #expect(AsyncHTTPClientTransport.gateKey(for: URL(string: "httpx://example.com/")!) == nil)
    }

    /// A transport over a client you own has no gate (its pool is not known).
    @Test func aClientYouOwnIsNotGated() async throws {
        let transport = AsyncHTTPClientTransport(client: HTTPClient.shared)
        #expect(transport.gate == nil)
    }
}

/// The gate through the transport, against a loopback server.
extension ConnectionGateTests {
    @Test func moreRequestsThanConnectionsAllComplete() async throws {
        let server = LoopbackServer(synchronousHandler: { request in
            .response(HTTPResponse(status: 200, body: Data(request.path.utf8)))
        })
        try server.start()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 2))
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let response = try await transport.send(
                        HTTPRequest(url: server.baseURL.appendingPathComponent("n\(index)")))
                    return String(decoding: response.body, as: UTF8.self)
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(bodies == Set((0..<40).map { "/n\($0)" }))
        #expect(transport.gate?.isIdle == true)
        try await transport.shutdown()
    }

    /// With the one connection held by a stalled answer, a second request waits at the gate; its own limits end it
    /// there, named as through URLSession, and cancelling it is a cancellation.
    @Test(arguments: ["deadline", "idle", "cancel"])
    func aRequestWaitingAtTheGateEndsByItsOwnLimits(_ ending: String) async throws {
        let server = LoopbackServer(synchronousHandler: { request in
            request.path.hasSuffix("stall")
                ? .download(LoopbackDownload(length: 1 << 20, stallAfter: 1_000))
                : .response(HTTPResponse(status: 200, body: Data("ok".utf8)))
        })
        try server.start()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: 1, idleTimeout: 30))
        let host = try #require(AsyncHTTPClientTransport.gateKey(for: server.baseURL))
        let stalled = Task {
            try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("stall")))
        }
        await Self.eventually { transport.gate?.counts(host).inFlight == 1 }
        var request = HTTPRequest(url: server.baseURL.appendingPathComponent("second"))
        switch ending {
        case "deadline": request.deadline = 0.5
        case "idle": request.timeout = 0.5
        default: break
        }
        let second = Task { [request] in try await transport.send(request) }
        if ending == "cancel" {
            // Only the cancellation ends this waiter, so it is seen waiting first (a limit may end the others at
            // any time: they wait at the gate because the one place is taken, as seen above).
            await Self.eventually { transport.gate?.counts(host).waiting == 1 }
            second.cancel()
        }
        let error = await #expect(throws: CRUDError.self) { try await second.value }
        switch (ending, error) {
        case ("deadline", .timedOut(.deadline(0.5))?), ("idle", .timedOut(.idle(0.5))?), ("cancel", .cancelled?): break
        default: Issue.record("\(ending): got \(String(describing: error))")
        }
        let gate = try #require(transport.gate)
        #expect(gate.counts(host) == (1, 0), "the waiter left the queue; the stalled answer keeps its place")
        stalled.cancel()
        _ = await stalled.result
        #expect(transport.gate?.isIdle == true)
        try await transport.shutdown()
    }
}
