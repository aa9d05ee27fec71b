@_spi(TransportKit) import CRUDKitCore
import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// Coalesced reads under hostile timing: callers leaving in any order, deadlines of every kind, callers who must
/// not share, and the stage moved behind custom middleware in any order of the standard stages.
@Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct CoalescingHostileTests {
    let transport = GateTransport { request in
        var response = jsonResponse(adaJSON)
        response.url = request.url
        response.headers["X-Seen-Authorization"] = request.headers["Authorization"]
        response.headers["X-Seen-Cookie"] = request.headers["Cookie"]
        return response
    }

    @Test func aCallerArrivingAfterEveryoneTimedOutStartsAFreshExchange() async throws {
        let api = API(baseURL: testBase, transport: transport)
        var read = Request<StubPerson>(.get, "people/1")
        read.deadline = 0.1
        let callers = (0..<3).map { [read] _ in Task { try await api.send(read) } }
        for caller in callers { _ = await crudError { try await caller.value } }
        // At once, before the dead exchange has finished being cancelled. With a deadline of its own far away: its
        // answer comes after the test's release, which a loaded machine (CI beside a build) made later than 0.1 s.
        var lateRead = read
        lateRead.deadline = 60
        let late = Task { [lateRead] in try await api.send(lateRead) }
        await transport.arrivals.wait(until: 2)
        transport.release()
        #expect(try await late.value.firstName == "Ada")
        #expect(transport.requests.count == 2)
        await waitUntil { api.coalescer.flightCount == 0 && api.coalescer.waitingCallers == 0 }
    }

    @Test func aThousandCallersWithMixedDeadlinesEachEndOnTheirOwnTerms() async throws {
        let api = API(baseURL: testBase, transport: transport)
        let deadlines: [TimeInterval?] = [nil, 0, -1, .nan, 0.05, 60, .infinity]
        let isShort: @Sendable (TimeInterval?) -> Bool = { $0.map { $0 < 1 } ?? false }  // NaN: none, as unshared
        let ended = Tally()
        // The first caller, with no deadline, keeps the exchange in flight for everyone who joins.
        let first = Task { try await api.send(Request<StubPerson>(.get, "people/1")) }
        await waitUntil { api.coalescer.waitingCallers == 1 }
        let callers = (1..<1_000).map { index in
            Task { () -> (TimeInterval?, CRUDError?) in
                var read = Request<StubPerson>(.get, "people/1")
                read.deadline = deadlines[index % deadlines.count]
                defer { if isShort(read.deadline) { ended.increment() } }
                do {
                    _ = try await api.send(read)
                    return (read.deadline, nil)
                } catch {
                    return (read.deadline, error as? CRUDError)
                }
            }
        }
        // The server holds its answer until every caller with a short deadline has ended.
        let short = (1..<1_000).count { isShort(deadlines[$0 % deadlines.count]) }
        await ended.wait(until: short)
        transport.release()
        for caller in callers {
            let (deadline, error) = await caller.value
            if isShort(deadline) {
                #expect(error.map { if case .timedOut(.deadline) = $0 { true } else { false } } == true)
            } else {
                #expect(error == nil, "\(String(describing: deadline)): \(String(describing: error))")
            }
        }
        #expect(try await first.value.firstName == "Ada")
        await waitUntil { api.coalescer.flightCount == 0 && api.coalescer.waitingCallers == 0 }
        // However their deadlines differ, they all joined the first caller's exchange.
        #expect(transport.requests.count == 1, "\(transport.requests.count)")
    }

    @Test func readsWithANaNTimeoutOrDeadlineHaveAKeyThatMatchesItself() async throws {
        let url = try #require(URL(string: "https://api.example.com/people/1"))
        let nanTimeout = HTTPRequest(url: url, timeout: .nan)
        let nanDeadline = HTTPRequest(url: url, deadline: .nan)
        // A key unequal to itself is never found again: never shared, and never taken out of the table.
        #expect(RequestCoalescer.Key(nanTimeout) == RequestCoalescer.Key(nanTimeout))
        #expect(RequestCoalescer.Key(nanDeadline) == RequestCoalescer.Key(nanDeadline))

        let api = API(baseURL: testBase, transport: transport)
        var read = Request<StubPerson>(.get, "people/1")
        read.timeout = .nan
        let callers = (0..<5).map { [read] _ in Task { try await api.send(read) } }
        await waitUntil { api.coalescer.waitingCallers == 5 }
        transport.release()
        for caller in callers { _ = try await caller.value }
        #expect(transport.requests.count == 1)
    }

    @Test func aCallerWithoutADeadlineJoiningOneWithADeadlineGetsTheAnswer() async throws {
        let api = API(baseURL: testBase, transport: transport)
        var timed = Request<StubPerson>(.get, "people/1")
        timed.deadline = 0.2
        let first = Task { [timed] in try await api.send(timed) }
        await transport.arrivals.wait(until: 1)
        let second = Task { try await api.send(Request<StubPerson>(.get, "people/1")) }
        let firstError = await crudError { try await first.value }
        #expect(firstError.map { if case .timedOut(.deadline(0.2)) = $0 { true } else { false } } == true)
        transport.release()
        #expect(try await second.value.firstName == "Ada")
        // The deadline is each caller's own, not part of what is sent: a caller with none may join one with one.
        let url = try #require(URL(string: "https://api.example.com/people/1"))
        #expect(
            RequestCoalescer.Key(HTTPRequest(url: url, deadline: 0.2)) == RequestCoalescer.Key(HTTPRequest(url: url)))
    }

    @Test func identicalReadsWithDifferentCookiesOrCredentialsAreNotShared() async throws {
        let api = API(baseURL: testBase, transport: transport)
        let variants: [[String: String]] = [
            ["Cookie": "session=a"], ["Cookie": "session=b"], ["cookie": "session=a; x=1"],
            ["Authorization": "Bearer a"], ["Authorization": "Bearer b"], ["authorization": "bearer a"], [:],
        ]
        let callers = variants.map { headers in
            Task {
                try await api.send(
                    Request<HTTPResponse>(.get, "people/1", headers: HTTPHeaders(headers), decoder: .response))
            }
        }
        await transport.arrivals.wait(until: variants.count)
        transport.release()
        for (headers, caller) in zip(variants, callers) {
            let response = try await caller.value
            let cookie = headers.first { $0.key.lowercased() == "cookie" }?.value
            let authorization = headers.first { $0.key.lowercased() == "authorization" }?.value
            #expect(response.headers["X-Seen-Cookie"] == cookie)
            #expect(response.headers["X-Seen-Authorization"] == authorization)
        }
        #expect(transport.requests.count == variants.count)
    }

    enum Signing {
        @TaskLocal static var user = "nobody"
    }

    private static let sign = ClosureMiddleware.intercept("sign") { request, context, next in
        var request = request
        request.headers["Authorization"] = "Signed " + Signing.user
        return try await next(request, context)
    }

    @Test(arguments: [0, 1, 2, 3])
    func signingBehindTheStageNeverSharesWhateverTheOrder(order: Int) async throws {
        let lists: [[any Middleware]] = [
            [CoalescingMiddleware(), RetryMiddleware(), Self.sign, ValidationMiddleware()],
            [CoalescingMiddleware(), CacheMiddleware(ResponseCache()), Self.sign],
            [ValidationMiddleware(), CoalescingMiddleware(), Self.sign, RetryMiddleware(), CoalescingMiddleware()],
            [Self.sign, CoalescingMiddleware(), RetryMiddleware()],
        ]
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware = lists[order] }
        let users = ["ada", "bob", "cy", "ada"]
        let callers = users.map { user in
            Task { try await Signing.$user.withValue(user) { try await api.get("people/1") } }
        }
        await transport.arrivals.wait(until: 3)
        await waitUntil { api.coalescer.waitingCallers == 4 }
        transport.release()
        for (user, caller) in zip(users, callers) {
            #expect(try await caller.value.headers["X-Seen-Authorization"] == "Signed " + user)
        }
        #expect(transport.requests.count == 3)
    }

    @Test func aPostIsNeverSharedEvenBehindCustomMiddleware() async throws {
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware.insert(Self.sign) }
        let callers = (0..<4).map { _ in Task { try await api.post("people", body: .json(["name": "Ada"])) } }
        await transport.arrivals.wait(until: 4)
        transport.release()
        for caller in callers { _ = try await caller.value }
        #expect(transport.requests.count == 4)
    }
}
