import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// One way a middleware runs: the chain runs the standard stages through their public `intercept`, as it runs a
/// middleware of your own, so a middleware of yours that forwards to a stage's `intercept` (under the stage's name)
/// does exactly what the stage does in its place, and one that answers a stage's name is placed as that stage.
@Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct StagesRunThroughInterceptTests {
    /// A middleware of a user's own that forwards to `stage` through its public `intercept`, under its name.
    private struct Forwarding: Middleware {
        let stage: any Middleware

        var name: MiddlewareName { stage.name }

        func intercept(
            _ request: HTTPRequest, context: MiddlewareContext, next: @escaping MiddlewareNext
        ) async throws -> HTTPResponse {
            try await stage.intercept(request, context: context, next: next)
        }
    }

    /// An API whose chain holds `stages` inserted with `insert(_:)`, each wrapped in a ``Forwarding`` when `wrapped`.
    private static func api(_ transport: any Transport, wrapped: Bool, _ stages: [any Middleware]) -> API {
        var configuration = APIConfiguration(baseURL: testBase, transport: transport, clock: ManualClock())
        configuration.middleware = []
        for stage in [RetryMiddleware(policy: RetryPolicy(maxAttempts: 2, jitter: 0)), ValidationMiddleware()]
            + stages
        {
            configuration.middleware.insert(wrapped ? Forwarding(stage: stage) : stage)
        }
        return API(configuration: configuration)
    }

    private static func kind(_ event: LogEvent) -> String {
        switch event.kind {
        case .requestSent: "sent \(event.attempt)"
        case .responseReceived(let status): "received \(status) \(event.attempt)"
        case .failed(let error): "failed \(error.caseName) \(event.attempt)"
        case .retrying: "retrying \(event.attempt)"
        }
    }

    @Test(arguments: [false, true])
    func aForwardedLoggingStageLogsTheRetriesAsTheStageDoes(wrapped: Bool) async throws {
        let stubs = StubTransport().on(.get, "people", sequence: [.status(503), .json([])])
        let events = Locked<[String]>([])
        let api = Self.api(
            stubs, wrapped: wrapped, [LoggingMiddleware { e in events.withLock { $0.append(Self.kind(e)) } }])
        #expect(api.configuration.middleware.names == [.retry, .logging, .validation])
        _ = try await api.get("people") as JSON
        #expect(
            events.withLock { $0 } == [
                "sent 1", "received 503 1", "failed httpStatus(503) 1", "retrying 1", "sent 2", "received 200 2",
            ])
    }

    @Test(arguments: [false, true])
    func aForwardedCoalescingStageSharesReadsAsTheStageDoes(wrapped: Bool) async throws {
        let transport = GateTransport { request in
            var response = jsonResponse(adaJSON)
            response.url = request.url
            return response
        }
        let api = Self.api(transport, wrapped: wrapped, [CoalescingMiddleware()])
        let callers = (0..<3).map { _ in Task { try await api.get("people/1", as: StubPerson.self) } }
        await waitUntil { api.coalescer.waitingCallers == 3 }
        await transport.arrivals.wait(until: 1)
        transport.release()
        for caller in callers { #expect(try await caller.value.firstName == "Ada") }
        #expect(transport.requests.count == 1)
    }

    @Test(arguments: [false, true])
    func forwardedKeyAndCacheStagesKeepTheirPlacesAndWork(wrapped: Bool) async throws {
        let stubs = StubTransport()
            .on(.post, "payments", sequence: [.status(503), .json(["ok": true])])
            .on(.get, "people/1") { request in
                request.recorded.header("If-None-Match") == "\"t\""
                    ? .status(304, headers: ["ETag": "\"t\""]) : .json(text: adaJSON, headers: ["ETag": "\"t\""])
            }
        let api = Self.api(stubs, wrapped: wrapped, [CacheMiddleware(ResponseCache()), IdempotencyKeyMiddleware()])
        #expect(api.configuration.middleware.names == [.idempotencyKeys, .retry, .validation, .cache])
        _ = try await api.post("payments")
        _ = try await api.get("people/1", as: StubPerson.self)
        #expect(try await api.get("people/1", as: StubPerson.self).firstName == "Ada")  // served on the 304
        let keys = stubs.recorder.requests.filter { $0.method == .post }.map { $0.headers["Idempotency-Key"] }
        #expect(keys.count == 2)
        #expect(keys[0] != nil && keys[0] == keys[1])
    }

    @Test func aMiddlewareOfYourOwnAnsweringAStageNameIsPlacedAndReplacedAsThatStage() {
        var list = [any Middleware].standard
        list.insert(Forwarding(stage: IdempotencyKeyMiddleware()))
        #expect(list.names == [.idempotencyKeys, .retry, .validation, .coalescing])
        list.insert(Forwarding(stage: RetryMiddleware(policy: .standard)))
        #expect(list.names == [.idempotencyKeys, .retry, .validation, .coalescing])
        #expect(list[1] is Forwarding)
        // And a stage replaces it in its turn.
        list.insert(RetryMiddleware())
        #expect(list.names == [.idempotencyKeys, .retry, .validation, .coalescing])
        #expect(list[1] is RetryMiddleware)
    }

    @Test func makeHTTPRequestKeysAPostForAForwardedKeyStage() throws {
        let api = API(baseURL: testBase).with { $0.middleware.insert(Forwarding(stage: IdempotencyKeyMiddleware())) }
        let request = Request(.post, "payments", decoder: .response)
        #expect(try api.makeHTTPRequest(request).headers["Idempotency-Key"] != nil)
    }
}

/// The placement rules and the standard order key on the standard stages' own names, which no string equals: a
/// middleware of yours that happens to share a stage's name is neither placed nor found as that stage.
@Suite struct StageNamesTests {
    private static func pass(_ name: MiddlewareName) -> ClosureMiddleware {
        .intercept(name) { request, context, next in try await next(request, context) }
    }

    @Test func aNameMadeFromAStringNeverEqualsAStageName() {
        let standard: [MiddlewareName] = [
            .idempotencyKeys, .retry, .logging, .validation, .coalescing, .cache, .tokenRefresh,
        ]
        for name in standard {
            #expect(MiddlewareName(name.rawValue) != name)
            #expect(MiddlewareName(stringLiteral: name.rawValue) != name)
            #expect(name.description == name.rawValue)
        }
        #expect(MiddlewareName("retry") == "retry")
    }

    @Test func yourMiddlewareNamedLikeAStageGoesWhereYouPutIt() {
        var list = [any Middleware].standard
        list.insert(Self.pass("cache"), before: .retry)
        #expect(list.names == ["cache", .retry, .validation, .coalescing])
        list.insert(Self.pass("retry"), after: .validation)
        #expect(list.names == ["cache", .retry, .validation, "retry", .coalescing])
        list.insert(Self.pass("tokenRefresh"), after: .coalescing)
        #expect(list.names == ["cache", .retry, .validation, "retry", .coalescing, "tokenRefresh"])
        list.insert(Self.pass("idempotencyKeys"))
        #expect(list.names.last == "idempotencyKeys")
    }

    @Test func yourMiddlewareNamedLikeAStageNeitherAnchorsNorReplacesNorRemovesIt() {
        var list = [any Middleware].standard
        list.insert(Self.pass("validation"), before: .retry)
        // A refresher goes just outside the real validation stage, not outside the one named "validation".
        list.insert(TokenRefresher(token: "t") { _ in "u" })
        #expect(list.names == ["validation", .retry, .tokenRefresh, .validation, .coalescing])
        // insert(_:) of your "coalescing" does not replace the stage; removing by the string leaves the stage.
        list.insert(Self.pass("coalescing"))
        #expect(list.names == ["validation", .retry, .tokenRefresh, .validation, .coalescing, "coalescing"])
        list.removeAll(named: "retry")
        #expect(list.names.contains(.retry))
        list.removeAll(named: .retry)
        #expect(!list.names.contains(.retry))
    }

    @Test func aStageAnchoredByAStringIsNotFound() {
        var list = [any Middleware].standard
        list.insert(Self.pass("mine"), after: "retry")
        #expect(list.names == [.retry, .validation, .coalescing, "mine"])
    }
}
