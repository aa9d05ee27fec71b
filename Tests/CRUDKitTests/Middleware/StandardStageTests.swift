import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// The standard stages as values carrying their own settings: placed by `insert(_:)`, inserted twice, removed,
/// shared between APIs, in a request's own list.
@Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct StandardStageTests {
    private static func api(
        _ transport: any Transport,
        _ change: (inout APIConfiguration) -> Void = { _ in }
    ) -> API {
        var configuration = APIConfiguration(baseURL: testBase, transport: transport, clock: ManualClock())
        change(&configuration)
        return API(configuration: configuration)
    }

    private static let twoAttempts = RetryPolicy(maxAttempts: 2, jitter: 0)

    private static func gate() -> GateTransport {
        GateTransport { request in
            var response = jsonResponse(adaJSON)
            response.url = request.url
            return response
        }
    }

    // MARK: - Placing

    @Test func insertingAStageAgainReplacesItInPlace() async throws {
        let stubs = StubTransport().on(.get, "people", .json([]))
        let first = Locked(0)
        let second = Locked(0)
        let api = Self.api(stubs) {
            $0.middleware.insert(LoggingMiddleware { _ in first.withLock { $0 += 1 } })
            $0.middleware.insert(LoggingMiddleware { _ in second.withLock { $0 += 1 } })
            $0.middleware.insert(RetryMiddleware(policy: Self.twoAttempts))
        }
        #expect(api.configuration.middleware.names == [.retry, .logging, .validation, .coalescing])
        _ = try await api.get("people")
        #expect(first.withLock { $0 } == 0)
        #expect(second.withLock { $0 } == 2)  // sent, received: once
        let retry = try #require(api.configuration.middleware.first { $0 is RetryMiddleware } as? RetryMiddleware)
        #expect(retry.policy.maxAttempts == 2)
    }

    @Test func aStageInsertedNextToYourOwnKeepsItsPlace() {
        var list: [any Middleware] = .standard
        list.insert(ClosureMiddleware("mine") { r, c, n in try await n(r, c) }, after: .coalescing)
        list.insert(CacheMiddleware(ResponseCache()))
        list.insert(LoggingMiddleware { _ in })
        list.insert(IdempotencyKeyMiddleware())
        #expect(list.names == [.idempotencyKeys, .retry, .logging, .validation, .coalescing, "mine", .cache])
        var empty: [any Middleware] = []
        empty.insert(ValidationMiddleware())
        empty.insert(RetryMiddleware())
        #expect(empty.names == [.retry, .validation])
    }

    @Test func aCoalescingStageAppendedTwiceStillSharesAndNeverWaitsOnItself() async throws {
        let transport = Self.gate()
        let api = Self.api(transport) { $0.middleware.append(CoalescingMiddleware()) }
        #expect(api.configuration.middleware.names == [.retry, .validation, .coalescing, .coalescing])
        let callers = (0..<3).map { _ in Task { try await api.get("people/1", as: StubPerson.self) } }
        await waitUntil { api.coalescer.waitingCallers == 3 }
        await transport.arrivals.wait(until: 1)
        transport.release()
        for caller in callers { #expect(try await caller.value.firstName == "Ada") }
        #expect(transport.requests.count == 1)
    }

    @Test func aRemovedStageDoesNotRun() async throws {
        let stubs = StubTransport().on(.get, "people", sequence: [.status(503), .json([])])
        let api = Self.api(stubs) {
            $0.middleware.insert(RetryMiddleware(policy: Self.twoAttempts))
            $0.middleware.removeAll(named: .retry)
        }
        let error = await crudError { try await api.get("people") }
        #expect(error?.status == 503)
        #expect(stubs.recorder.count == 1)
    }

    // MARK: - Retry and idempotency keys

    @Test func everyAttemptCarriesTheSameKeyOnlyWhenTheKeyStageIsOutsideRetry() async throws {
        func keys(_ place: (inout [any Middleware]) -> Void) async throws -> [String?] {
            let stubs = StubTransport().on(.post, "payments", sequence: [.status(503), .json(["ok": true])])
            let api = Self.api(stubs) {
                $0.middleware.insert(RetryMiddleware(policy: Self.twoAttempts))
                place(&$0.middleware)
            }
            _ = try? await api.post("payments")
            return stubs.recorder.requests.map { $0.headers["Idempotency-Key"] }
        }
        // insert(_:) puts the stage at its standard place, outside retry: the POST is retried with one key.
        let standard = try await keys { $0.insert(IdempotencyKeyMiddleware()) }
        #expect(standard.count == 2)
        #expect(standard[0] != nil && standard[0] == standard[1])
        // Inside retry, the retry stage sees a POST without a key: not safe to repeat, so it is not retried.
        let inside = try await keys { $0.insert(IdempotencyKeyMiddleware(), after: .retry) }
        #expect(inside.count == 1)
        #expect(inside[0] != nil)
    }

    @Test func aRequestsOwnPolicyWinsOverTheStages() async throws {
        let stubs = StubTransport().on(.get, "people", sequence: [.status(503), .status(503), .json([])])
        let api = Self.api(stubs) { $0.middleware.insert(RetryMiddleware(policy: Self.twoAttempts)) }
        var request = Request(.get, "people", decoder: .response)
        request.retryPolicy = RetryPolicy(maxAttempts: 3, jitter: 0)
        let response = try await api.send(request)
        #expect(response.status == 200)
        #expect(stubs.recorder.count == 3)
    }

    // MARK: - Sharing between APIs

    @Test func twoAPIsFromOneConfigurationNeverShareReadsInFlight() async throws {
        let transport = Self.gate()
        let configuration = APIConfiguration(baseURL: testBase, transport: transport)
        let first = API(configuration: configuration)
        let second = API(configuration: configuration)
        let third = first.with { _ in }
        let callers = [first, second, third].map { api in Task { try await api.get("people/1", as: StubPerson.self) } }
        await transport.arrivals.wait(until: 3)
        transport.release()
        for caller in callers { #expect(try await caller.value.firstName == "Ada") }
        #expect(transport.requests.count == 3)
    }

    @Test func oneCacheStageInTwoAPIsSharesItsCache() async throws {
        let stubs = StubTransport().on(.get, "people/1") { request in
            request.recorded.header("If-None-Match") == "\"t\""
                ? .status(304, headers: ["ETag": "\"t\""]) : .json(text: adaJSON, headers: ["ETag": "\"t\""])
        }
        let stage = CacheMiddleware(ResponseCache())
        let first = Self.api(stubs) { $0.middleware.insert(stage) }
        let second = Self.api(stubs) { $0.middleware.insert(stage) }
        let unshared = Self.api(stubs) { $0.middleware.insert(CacheMiddleware(ResponseCache())) }
        _ = try await first.get("people/1", as: StubPerson.self)
        #expect(try await second.get("people/1", as: StubPerson.self).firstName == "Ada")
        _ = try await unshared.get("people/1", as: StubPerson.self)
        #expect(stubs.recorder.requests.map { $0.header("If-None-Match") != nil } == [false, true, false])
        #expect(stage.cache.count == 1)
    }

    // MARK: - A request's own list

    @Test func aLoggingStageInARequestsOwnListLogsTheCall() async throws {
        let stubs = StubTransport().on(.get, "people", sequence: [.status(503), .json([])])
        let events = Locked<[String]>([])
        let api = Self.api(stubs) { $0.middleware.insert(RetryMiddleware(policy: Self.twoAttempts)) }
        var request = Request(.get, "people", decoder: .response)
        request.middleware = [LoggingMiddleware { event in events.withLock { $0.append("\(event.kind)") } }]
        _ = try await api.send(request)
        let kinds = events.withLock { $0 }
        #expect(kinds.count == 3)  // sent, retrying (through the request's logging stage), received 200
        #expect(kinds.first?.hasPrefix("requestSent") == true)
        #expect(kinds.dropFirst().first?.hasPrefix("retrying") == true)
    }

    @Test func aCoalescingStageInARequestsOwnListPassesRequestsOn() async throws {
        let transport = Self.gate()
        let api = Self.api(transport) { $0.middleware.removeAll(named: .coalescing) }
        var request = Request<StubPerson>(.get, "people/1")
        request.middleware = [CoalescingMiddleware()]
        let callers = (0..<2).map { _ in Task { [request] in try await api.send(request) } }
        await transport.arrivals.wait(until: 2)
        transport.release()
        for caller in callers { #expect(try await caller.value.firstName == "Ada") }
        #expect(transport.requests.count == 2)
    }

    // MARK: - Settings carried by the value

    @Test func aLoggingStagesOwnRedactionHidesWhatTheAPIsDoesNot() async throws {
        let stubs = StubTransport().on(.get, "people", .json([]))
        let lines = Locked<[String]>([])
        let redaction = Redaction(queryParameters: ["color"])
        let api = Self.api(stubs) {
            $0.middleware.insert(
                LoggingMiddleware({ event in lines.withLock { $0.append("\(event)") } }, redaction: redaction))
        }
        _ = try await api.get("people", query: ["color": "chartreuse"])
        let logged = lines.withLock { $0 }
        #expect(logged.count == 2)
        #expect(!logged.contains { $0.contains("chartreuse") })
        #expect(api.configuration.redaction.hidesQueryParameter("color") == false)
    }

    @Test func makeHTTPRequestAddsAKeyOnlyWithTheStage() throws {
        let plain = API(baseURL: testBase)
        let keyed = plain.with { $0.middleware.insert(IdempotencyKeyMiddleware()) }
        let request = Request(.post, "payments", decoder: .response)
        #expect(try plain.makeHTTPRequest(request).headers["Idempotency-Key"] == nil)
        #expect(try keyed.makeHTTPRequest(request).headers["Idempotency-Key"] != nil)
    }
}
