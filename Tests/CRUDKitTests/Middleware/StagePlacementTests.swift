import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// A stage whose place in the chain decides whether it works goes where it works, whichever `insert` places it.
@Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct StagePlacementTests {
    private static func api(
        _ transport: any Transport, _ change: (inout [any Middleware]) -> Void
    ) -> API {
        // No deadline: a ManualClock's sleeps return at once, so any deadline would pass before the refresh ends.
        var configuration = APIConfiguration(
            baseURL: testBase, transport: transport, deadline: nil, clock: ManualClock())
        change(&configuration.middleware)
        return API(configuration: configuration)
    }

    /// 401 unless the request carries the fresh token.
    private static func tokenServer() -> StubTransport {
        StubTransport().on(.get, "people/:id") { request in
            request.request.headers["Authorization"] == "Bearer fresh" ? .json(["id": 1]) : .status(401)
        }
    }

    /// `count` concurrent requests that meet a 401 with the stale token: how many succeeded.
    private static func concurrentReads(_ api: API, count: Int) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            for n in 0..<count {
                group.addTask { (try? await api.get("people/\(n)") as JSON) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }

    /// 1,000 at once in `swift test`: 10,000 took 6 s alone and ran past the suite's minute at load 25–33 on two
    /// cores; the stress step (`.ci/stress.sh`) runs the 10,000 once.
    @Test func aRefresherInsertedPlainlyRefreshesAThousandConcurrent401sOnce() async throws {
        try await refreshesOnce(concurrent: 1_000)
    }

    @Test(.enabled(if: StressRounds.enabled, StressRounds.skipReason), StressRounds.timeLimit)
    func aRefresherInsertedPlainlyRefreshesTenThousandConcurrent401sOnceUnderStress() async throws {
        try await refreshesOnce(concurrent: 10_000)
    }

    private func refreshesOnce(concurrent count: Int) async throws {
        let refresher = TokenRefresher(token: "stale") { _ in "fresh" }
        let api = Self.api(Self.tokenServer()) { $0.insert(refresher) }
        #expect(api.configuration.middleware.names == [.retry, .tokenRefresh, .validation, .coalescing])
        let succeeded = await Self.concurrentReads(api, count: count)
        #expect(succeeded == count)
        #expect(await refresher.refreshCount == 1)
    }

    @Test(arguments: [MiddlewareName.validation, .coalescing, .cache])
    func aRefresherInsertedInsideValidationGoesJustOutsideIt(anchor: MiddlewareName) async throws {
        let refresher = TokenRefresher(token: "stale") { _ in "fresh" }
        let api = Self.api(Self.tokenServer()) {
            $0.insert(CacheMiddleware(ResponseCache()))
            $0.insert(refresher, after: anchor)
        }
        #expect(api.configuration.middleware.names == [.retry, .tokenRefresh, .validation, .coalescing, .cache])
        let json: JSON = try await api.get("people/1")
        #expect(json["id"].int == 1)
        #expect(await refresher.refreshCount == 1)
    }

    @Test func aRefresherPlacedWhereItWorksStaysWhereItWasPut() async throws {
        var list = [any Middleware].standard
        list.insert(LoggingMiddleware { _ in })
        let refresher = TokenRefresher(token: "stale") { _ in "fresh" }
        var after = list
        after.insert(refresher, after: .retry)
        #expect(after.names == [.retry, .tokenRefresh, .logging, .validation, .coalescing])
        var before = list
        before.insert(refresher, before: .retry)
        #expect(before.names == [.tokenRefresh, .retry, .logging, .validation, .coalescing])
        var beforeValidation = list
        beforeValidation.insert(refresher, before: .validation)
        #expect(beforeValidation.names == [.retry, .logging, .tokenRefresh, .validation, .coalescing])
    }

    @Test func retryInsertedInsideValidationGoesJustOutsideItAndRetriesA503() async throws {
        let stubs = StubTransport().on(.get, "people", sequence: [.status(503), .json([])])
        let api = Self.api(stubs) {
            $0.removeAll(named: .retry)
            $0.insert(RetryMiddleware(policy: RetryPolicy(maxAttempts: 2, jitter: 0)), after: .validation)
        }
        #expect(api.configuration.middleware.names == [.retry, .validation, .coalescing])
        let response = try await api.send(Request(.get, "people", decoder: .response))
        #expect(response.status == 200)
        #expect(stubs.recorder.count == 2)
    }

    @Test func aCacheInsertedOutsideValidationGoesJustInsideItAndServesA304() async throws {
        let stubs = StubTransport().on(.get, "people/1") { request in
            request.request.headers["If-None-Match"] == "\"v1\""
                ? .status(304, headers: ["ETag": "\"v1\""]) : .json(["id": 1], headers: ["ETag": "\"v1\""])
        }
        let api = Self.api(stubs) { $0.insert(CacheMiddleware(ResponseCache()), before: .retry) }
        #expect(api.configuration.middleware.names == [.retry, .validation, .cache, .coalescing])
        _ = try await api.get("people/1") as JSON
        let again: JSON = try await api.get("people/1")
        #expect(again["id"].int == 1)
        #expect(stubs.recorder.requests.map { $0.headers["If-None-Match"] } == [nil, "\"v1\""])
    }

    @Test func validationInsertedInsideTheCacheGoesJustOutsideIt() {
        var list: [any Middleware] = [RetryMiddleware(), CacheMiddleware(ResponseCache())]
        list.insert(ValidationMiddleware(), after: .cache)
        #expect(list.names == [.retry, .validation, .cache])
        var outside: [any Middleware] = [CacheMiddleware(ResponseCache())]
        outside.insert(RetryMiddleware(), after: .cache)
        #expect(outside.names == [.cache, .retry])  // no validation: nothing to keep apart
    }

    @Test func aMiddlewareWhosePlaceDoesNotMatterGoesWhereItIsPut() {
        var list = [any Middleware].standard
        list.insert(ClosureMiddleware("mine") { r, c, n in try await n(r, c) }, after: .validation)
        #expect(list.names == [.retry, .validation, "mine", .coalescing])
        list.insert(LoggingMiddleware { _ in }, after: .coalescing)
        #expect(list.names == [.retry, .validation, "mine", .coalescing, .logging])
    }
}
