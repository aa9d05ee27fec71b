@_spi(TransportKit) import CRUDKitCore
import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// Identical reads in flight share one exchange; everything else goes on its own.
@Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct RequestCoalescingTests {
    let transport = GateTransport { request in
        var response = jsonResponse(adaJSON)
        response.url = request.url
        return response
    }

    @Test func fiftyIdenticalReadsShareOneTransportCall() async throws {
        // Given
        let api = API(baseURL: testBase, headers: ["Authorization": "Bearer a"], transport: transport)
        // When
        let callers = (0..<50).map { _ in Task { try await api.get("people/1", as: StubPerson.self) } }
        await waitUntil { api.coalescer.waitingCallers == 50 }
        await transport.arrivals.wait(until: 1)
        transport.release()
        // Then
        for caller in callers {
            #expect(try await caller.value.firstName == "Ada")
        }
        #expect(transport.requests.count == 1)
        #expect(api.coalescer.flightCount == 0)
        #expect(api.coalescer.waitingCallers == 0)
    }

    /// A tracing middleware gives every read a header of its own (`traceparent`); reads that differ only in the
    /// fields it declares as a trace's context still share one exchange, and an undeclared field still keeps reads
    /// apart.
    @Test(arguments: [true, false]) func readsDifferingOnlyInATracesContextShareOneExchange(declared: Bool) async throws
    {
        struct Tracing: Middleware {
            let declared: Bool
            func intercept(
                _ request: HTTPRequest, context: MiddlewareContext, next: @escaping MiddlewareNext
            ) async throws -> HTTPResponse {
                var request = request
                var context = context
                request.headers["Traceparent"] = "00-\(UUID().uuidString)-01"
                if declared { context.propagationHeaderNames.insert("traceparent") }
                return try await next(request, context)
            }
        }
        let api = API(baseURL: testBase, transport: transport).with {
            $0.middleware.insert(Tracing(declared: declared), at: 0)
        }
        let callers = (0..<10).map { _ in Task { try await api.get("people/1", as: StubPerson.self) } }
        await waitUntil { api.coalescer.waitingCallers == 10 }
        #expect(api.coalescer.flightCount == (declared ? 1 : 10))
        transport.release()
        for caller in callers { #expect(try await caller.value.firstName == "Ada") }
        #expect(transport.requests.count == (declared ? 1 : 10))
        #expect(transport.requests.allSatisfy { $0.headers["traceparent"] != nil })
    }

    @Test func differentURLsHeadersAndMethodsAreNotShared() async throws {
        let api = API(baseURL: testBase, headers: ["Accept-Language": "en"], transport: transport)
        let requests: [Request<HTTPResponse>] = [
            Request(.get, "people/1", decoder: .response),
            Request(.get, "people/2", decoder: .response),
            Request(.get, "people/1", query: ["page": "2"], decoder: .response),
            Request(.get, "people/1", headers: ["Accept-Language": "fr"], decoder: .response),
            Request(.get, "people/1", headers: ["Authorization": "Bearer other"], decoder: .response),
            Request(.get, "people/1", headers: ["Accept": "text/csv"], decoder: .response),
            Request(.head, "people/1", decoder: .response),
        ]
        let callers = requests.map { request in Task { try await api.send(request) } }
        await waitUntil { api.coalescer.waitingCallers == requests.count }
        #expect(api.coalescer.flightCount == requests.count)
        transport.release()
        for caller in callers { _ = try await caller.value }
        #expect(transport.requests.count == requests.count)
    }

    @Test func postsAreNeverShared() async throws {
        let api = API(baseURL: testBase, transport: transport)
        let callers = (0..<5).map { _ in
            Task { try await api.post("people", body: .json(["name": "Ada"])) }
        }
        await transport.arrivals.wait(until: 5)
        #expect(api.coalescer.waitingCallers == 0)
        transport.release()
        for caller in callers { _ = try await caller.value }
        #expect(transport.requests.count == 5)
    }

    @Test func oneCancelledCallerLeavesTheOthersWaiting() async throws {
        let api = API(baseURL: testBase, transport: transport)
        let callers = (0..<3).map { _ in Task { try await api.get("people/1", as: StubPerson.self) } }
        await waitUntil { api.coalescer.waitingCallers == 3 }
        await transport.arrivals.wait(until: 1)
        // When the first caller is cancelled, it stops waiting at once; the exchange goes on.
        callers[0].cancel()
        let error = await crudError { try await callers[0].value }
        #expect(error?.caseName == "cancelled")
        #expect(api.coalescer.waitingCallers == 2)
        #expect(transport.cancellations.count == 0)
        transport.release()
        #expect(try await callers[1].value.firstName == "Ada")
        #expect(try await callers[2].value.firstName == "Ada")
        #expect(transport.requests.count == 1)
        #expect(transport.cancellations.count == 0)
    }

    @Test func cancellingEveryCallerCancelsTheExchange() async throws {
        let api = API(baseURL: testBase, transport: transport)
        let callers = (0..<3).map { _ in Task { try await api.get("people/1", as: StubPerson.self) } }
        await waitUntil { api.coalescer.waitingCallers == 3 }
        await transport.arrivals.wait(until: 1)
        for caller in callers { caller.cancel() }
        await transport.cancellations.wait(until: 1)
        for caller in callers {
            #expect(await crudError { try await caller.value }?.caseName == "cancelled")
        }
        #expect(api.coalescer.flightCount == 0)
        #expect(api.coalescer.waitingCallers == 0)
        // A read after that starts afresh.
        transport.release()
        _ = try await api.get("people/1", as: StubPerson.self)
        #expect(transport.requests.count == 2)
    }

    @Test func aFailureIsShared() async throws {
        let failing = GateTransport { _ in throw CRUDError.transport(underlying: URLError(.networkConnectionLost)) }
        let api = API(baseURL: testBase, transport: failing)
        let callers = (0..<4).map { _ in Task { try await api.get("people/1") } }
        await waitUntil { api.coalescer.waitingCallers == 4 }
        failing.release()
        for caller in callers {
            #expect(await crudError { try await caller.value }?.caseName == "transport")
        }
        #expect(failing.requests.count == 1)
        #expect(api.coalescer.flightCount == 0)
    }

    @Test func theOffSwitchSendsEveryRead() async throws {
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware.removeAll(named: .coalescing) }
        let callers = (0..<3).map { _ in Task { try await api.get("people/1", as: StubPerson.self) } }
        await transport.arrivals.wait(until: 3)
        #expect(api.coalescer.waitingCallers == 0)
        transport.release()
        for caller in callers { _ = try await caller.value }
        #expect(transport.requests.count == 3)
    }

    @Test func aReadWithAProgressObserverGoesAlone() async throws {
        let api = API(baseURL: testBase, transport: transport)
        var watched = Request(.get, "people/1", decoder: .response)
        watched.observer = TransferObserver(download: { _ in })
        let plain = Task { try await api.get("people/1") }
        let observed = Task { try await api.send(watched) }
        await transport.arrivals.wait(until: 2)
        transport.release()
        _ = try await (plain.value, observed.value)
        #expect(transport.requests.count == 2)
    }

    @Test func aReadAfterAWriteDoesNotJoinAnOlderRead() async throws {
        // Given a read held in flight
        let api = API(baseURL: testBase, transport: transport)
        let before = Task { try await api.get("people/1") }
        await waitUntil { api.coalescer.waitingCallers == 1 }
        // When a write to the same resource completes while that read is still held
        let write = Task { try await api.put("people/1", body: .json(["firstName": "Ada"])) }
        await transport.arrivals.wait(until: 2)
        transport.release { $0.method == .put }
        _ = try await write.value
        // Then a later read does not join the older one
        let after = Task { try await api.get("people/1") }
        await waitUntil { api.coalescer.waitingCallers == 2 }
        #expect(api.coalescer.flightCount == 2)
        transport.release()
        _ = try await (before.value, after.value)
        #expect(transport.requests.map(\.method) == [.get, .put, .get])
    }

    @Test func keysIgnoreHeaderOrderAndCase() throws {
        let url = try #require(URL(string: "https://api.example.com/people/1"))
        let one = HTTPRequest(url: url, headers: ["Accept": "application/json", "Authorization": "Bearer a"])
        let two = HTTPRequest(url: url, headers: ["authorization": "Bearer a", "ACCEPT": "application/json"])
        let other = HTTPRequest(url: url, headers: ["authorization": "Bearer b", "ACCEPT": "application/json"])
        #expect(RequestCoalescer.Key(one) == RequestCoalescer.Key(two))
        #expect(RequestCoalescer.Key(one) != RequestCoalescer.Key(other))
        #expect(RequestCoalescer.Key(HTTPRequest(method: .get, url: url, body: .data(Data("x".utf8)))) == nil)
        #expect(RequestCoalescer.Key(HTTPRequest(method: .delete, url: url)) == nil)
    }

    // MARK: - Each caller's own deadline

    @Test func aCallerWhoJoinsLateWaitsWithItsOwnDeadline() async throws {
        // Given a server that holds its answer until the test opens the gate, and caller A reading with a deadline
        // of 5 s. Nothing here depends on how fast the machine is: B joins once the server has A's request (so the
        // shared exchange is registered), and A's deadline only has to outlast B's join, a task start away (the
        // join is awaited with a bound, and a B that missed the exchange would show as a second request).
        let gate = Promise<Void>()
        let arrived = Promise<Void>()
        let server = LoopbackServer { _ in
            arrived.succeed(())
            try await gate.future.value
            return .response(
                HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(adaJSON.utf8)))
        }
        try server.start()
        defer { server.stop() }
        let api = API(baseURL: server.baseURL)
        var readA = Request<StubPerson>(.get, "people/1")
        // 5 s (30 s under a sanitizer, where a loaded pool took over 2 s to start B): only B's join must fit in it.
        let deadlineA: TimeInterval = TestEnvironment.underSanitizer ? 30 : 5
        readA.deadline = deadlineA
        var readB = readA
        readB.deadline = 120
        // When A starts, and an identical caller B (deadline 120 s) joins once the server has A's request,
        let first = Task { [readA] in try await api.send(readA) }
        try await arrived.future.value
        let second = Task { [readB] in try await api.send(readB) }
        await waitUntil("B joining A's exchange", within: .seconds(60)) { api.coalescer.waitingCallers == 2 }
        // Then A ends at its own deadline,
        let firstError = await crudError { try await first.value }
        #expect(firstError.map { "\($0)" } == "\(CRUDError.timedOut(.deadline(deadlineA)))")
        // and B keeps waiting for the exchange, which goes on for it, and gets the answer. Were B held to A's
        // deadline (the exchange sent with A's deadline, as before, or every waiter ended when the first one's
        // timer fires), the exchange would have ended at A's deadline, which has passed by now: B would have failed
        // with A's `timedOut(.deadline(…))`, no caller would still wait, and `second.value` would throw.
        #expect(api.coalescer.waitingCallers == 1)
        gate.succeed(())
        #expect(try await second.value.firstName == "Ada")
        #expect(server.requests.count == 1, "B sent its own request: it joined after A's exchange had ended")
    }

    @Test func aSharedExchangeEndsWhenItsLastCallersDeadlinePasses() async throws {
        // A server that never answers: the shared exchange carries no deadline of its own, so it must end when its
        // last caller leaves.
        let api = API(baseURL: testBase, transport: transport)
        var read = Request<StubPerson>(.get, "people/1")
        read.deadline = 0.2
        let callers = (0..<3).map { [read] _ in Task { try await api.send(read) } }
        for caller in callers {
            let error = await crudError { try await caller.value }
            #expect(error.map { "\($0)" } == "\(CRUDError.timedOut(.deadline(0.2)))")
        }
        await transport.cancellations.wait(until: 1)
        #expect(api.coalescer.flightCount == 0)
        #expect(api.coalescer.waitingCallers == 0)
        #expect(transport.requests.count == 1)
        #expect(transport.requests.first?.deadline == nil)
    }

    /// A caller's deadline holds even when its timer runs late: the shared exchange carries no deadline (it may
    /// follow redirects past the caller's), so an answer that arrives after the caller's deadline, before the timer
    /// has run (a busy pool), must be that caller's timeout. Found in CI: a coalesced read through three slow
    /// redirects returned the last hop's 200 after its 1.2 s deadline. The clock here moves past the deadline
    /// without waiting for it (the timer, an hour away, never runs in the test); a caller with no deadline, or one
    /// still ahead, gets the answer.
    @Test func anAnswerAfterACallersDeadlineIsItsTimeoutEvenBeforeItsTimerRuns() async throws {
        let clock = Locked(ContinuousClock.now)
        let coalescer = RequestCoalescer(now: { clock.withLock { $0 } })
        let key = try #require(RequestCoalescer.Key(HTTPRequest(method: .get, url: testBase)))
        let (started, signal) = AsyncStream.makeStream(of: Void.self)
        let gate = Promise<Void>()
        let exchange: @Sendable () async throws -> HTTPResponse = {
            signal.yield()
            try await gate.future.value
            return HTTPResponse(status: 200, body: Data("late".utf8))
        }
        let late = Task { try await coalescer.response(for: key, deadline: 3_600, operation: exchange) }
        for await _ in started { break }
        let unbounded = Task { try await coalescer.response(for: key, operation: exchange) }
        let ahead = Task { try await coalescer.response(for: key, deadline: 7_200, operation: exchange) }
        await waitUntil("three callers waiting for one exchange") { coalescer.waitingCallers == 3 }
        clock.withLock { $0 += .seconds(3_601) }
        gate.succeed(())
        let error = await crudError { try await late.value }
        #expect(error.map { "\($0)" } == "\(CRUDError.timedOut(.deadline(3_600)))")
        #expect(try await unbounded.value.status == 200)
        #expect(try await ahead.value.status == 200)
        #expect(coalescer.flightCount == 0)
    }

    // MARK: - Keyed on what is sent

    enum Signing {
        @TaskLocal static var user = "nobody"
    }

    /// An API whose innermost middleware (next to the transport) signs each request for the caller's task-local user.
    private func signingAPI() -> API {
        API(baseURL: testBase, transport: transport).with {
            $0.middleware.insert(
                .intercept("sign") { request, context, next in
                    var request = request
                    request.headers["Authorization"] = "Signed " + Signing.user
                    return try await next(request, context)
                })
        }
    }

    @Test func callersSignedDifferentlyBehindTheStageAreNotShared() async throws {
        let signingTransport = GateTransport { request in
            var response = jsonResponse(adaJSON)
            response.url = request.url
            response.headers["X-Signed"] = request.headers["Authorization"]
            return response
        }
        let api = API(baseURL: testBase, transport: signingTransport).with {
            $0.middleware.insert(
                .intercept("sign") { request, context, next in
                    var request = request
                    request.headers["Authorization"] = "Signed " + Signing.user
                    return try await next(request, context)
                })
        }
        let ada = Task { try await Signing.$user.withValue("ada") { try await api.get("people/1") } }
        let bob = Task { try await Signing.$user.withValue("bob") { try await api.get("people/1") } }
        await signingTransport.arrivals.wait(until: 2)
        signingTransport.release()
        #expect(try await ada.value.headers["X-Signed"] == "Signed ada")
        #expect(try await bob.value.headers["X-Signed"] == "Signed bob")
        #expect(signingTransport.requests.count == 2)
    }

    @Test func callersSignedAlikeBehindTheStageStillShare() async throws {
        let api = signingAPI()
        let callers = (0..<5).map { _ in
            Task { try await Signing.$user.withValue("ada") { try await api.get("people/1") } }
        }
        await waitUntil { api.coalescer.waitingCallers == 5 }
        await transport.arrivals.wait(until: 1)
        transport.release()
        for caller in callers { #expect(try await caller.value.status == 200) }
        #expect(transport.requests.count == 1)
        #expect(transport.requests.first?.headers["Authorization"] == "Signed ada")
    }
}
