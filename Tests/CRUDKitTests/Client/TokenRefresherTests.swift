import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// Lets callers through only once `count` of them have arrived (shared by the token refresher suites).
actor Gate {
    private let count: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var arrived = 0

    init(count: Int) { self.count = count }

    func arrive() async {
        arrived += 1
        if arrived >= count {
            for continuation in waiting { continuation.resume() }
            waiting.removeAll()
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}

@Suite struct TokenRefresherTests {
    /// A server that accepts only `Bearer fresh`, and holds its 401 answers until `expired` of them are due.
    func server(holding expired: Int) -> StubTransport {
        let gate = Gate(count: expired)
        return StubTransport().on(nil, "**") { request in
            if request.recorded.header("Authorization") == "Bearer fresh" { return .json(text: #"{"ok": true}"#) }
            await gate.arrive()
            return .json(text: #"{"detail": "expired"}"#, status: 401)
        }
    }

    @Test func twentyConcurrentExpiredRequestsCauseOneRefresh() async throws {
        let refreshes = Locked(0)
        let auth = TokenRefresher(token: "stale") { expired in
            #expect(expired == "stale")
            refreshes.withLock { $0 += 1 }
            return "fresh"
        }
        let transport = server(holding: 20)
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware.insert(auth, after: .retry) }
        try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            for index in 0..<20 { group.addTask { try await api.get("people/\(index)") } }
            for try await response in group { #expect(response.status == 200) }
        }
        #expect(refreshes.withLock { $0 } == 1)
        #expect(await auth.refreshCount == 1)
        #expect(await auth.currentToken == "fresh")
        let sent = transport.recorder.requests.map { $0.header("Authorization") }
        #expect(sent.filter { $0 == "Bearer stale" }.count == 20)
        #expect(sent.filter { $0 == "Bearer fresh" }.count == 20)
    }

    @Test func aFailedRefreshFailsEveryWaiterAndIsNotRepeated() async throws {
        let refreshes = Locked(0)
        let auth = TokenRefresher(token: "stale") { _ in
            refreshes.withLock { $0 += 1 }
            throw CRUDError.httpStatus(HTTPResponse(status: 400, body: Data("refresh token revoked".utf8)))
        }
        let transport = server(holding: 5)
        // Five separate requests must reach the server together, so identical reads are not coalesced here.
        let api = API(baseURL: testBase, transport: transport).with {
            $0.middleware.insert(auth, after: .retry)
            $0.middleware.removeAll(named: .coalescing)
        }
        let errors = await withTaskGroup(of: CRUDError?.self) { group in
            for _ in 0..<5 { group.addTask { await crudError { try await api.get("me") } } }
            var errors: [CRUDError?] = []
            for await error in group { errors.append(error) }
            return errors
        }
        #expect(errors.map { $0?.status } == Array(repeating: 400, count: 5))
        #expect(transport.recorder.count == 5)

        // The same stale token is not refreshed again: the request fails as the refresh did.
        let later = server(holding: 1)
        let again = API(baseURL: testBase, transport: later).with { $0.middleware.insert(auth, after: .retry) }
        #expect((await crudError { try await again.get("me") })?.status == 400)
        #expect(later.recorder.count == 1)
        #expect(refreshes.withLock { $0 } == 1)

        // A new token from signing in allows refreshing again.
        await auth.setToken("signed-in")
        let third = API(baseURL: testBase, transport: server(holding: 1)).with {
            $0.middleware.insert(auth, after: .retry)
        }
        _ = await crudError { try await third.get("me") }
        #expect(refreshes.withLock { $0 } == 2)

        // A refresh that throws something other than a CRUDError leaves the original 401.
        let plain = TokenRefresher(token: "x") { _ in throw CancellationError() }
        let fourth = API(baseURL: testBase, transport: server(holding: 1)).with {
            $0.middleware.insert(plain, after: .retry)
        }
        #expect((await crudError { try await fourth.get("me") })?.status == 401)
    }

    @Test func aRequestIsRetriedWithANewTokenOnlyOnce() async {
        let refreshes = Locked(0)
        let auth = TokenRefresher(token: "a") { _ in
            refreshes.withLock { $0 += 1 }
            return "still-wrong"
        }
        let transport = StubTransport().on(nil, "**", .json(text: "{}", status: 401))
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware.insert(auth, after: .retry) }
        #expect((await crudError { try await api.get("me") })?.status == 401)
        #expect(transport.recorder.requests.map { $0.header("Authorization") } == ["Bearer a", "Bearer still-wrong"])
        #expect(refreshes.withLock { $0 } == 1)
    }

    @Test func anotherRequestsRefreshIsUsedWithoutRefreshingAgain() async throws {
        let auth = TokenRefresher(token: "stale", scheme: "Token") { _ in "fresh" }
        let transport = StubTransport().on(nil, "**") { request in
            request.recorded.header("Authorization") == "Token fresh"
                ? .json(text: "{}") : .json(text: "{}", status: 401)
        }
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware.insert(auth, after: .retry) }
        // A request built with the old token, sent after the token changed, is retried without a refresh.
        let old = HTTPRequest(method: .get, url: testBase, headers: ["Authorization": "Token stale"])
        _ = try await api.get("me")
        #expect(await auth.refreshCount == 1)
        let context = MiddlewareContext(api: api, request: old)
        let decision = await auth.retry(
            old, failedWith: .httpStatus(HTTPResponse(status: 401)), context: context)
        #expect(decision.delay == .zero)
        #expect(await auth.refreshCount == 1)
    }
}
