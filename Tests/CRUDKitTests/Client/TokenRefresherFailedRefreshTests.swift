import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// Requests waiting for a refresh that fails are never sent with the dead token: they fail as the refresh did.
@Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct TokenRefresherFailedRefreshTests {
    /// A server that accepts only `Bearer fresh`; `dead` counts the requests that carried `Bearer stale`.
    private func server(counting dead: Locked<Int>) -> StubTransport {
        StubTransport().on(nil, "**") { request in
            if request.recorded.header("Authorization") == "Bearer fresh" { return .json(text: "{}") }
            if request.recorded.header("Authorization") == "Bearer stale" { dead.withLock { $0 += 1 } }
            return .json(text: #"{"detail": "expired"}"#, status: 401)
        }
    }

    /// Runs one request that starts a refresh (held until `release`), then `waiters` more that wait for it, then
    /// lets the refresh end by calling `outcome`; returns every waiter's error.
    private func waitersOfAFailedRefresh(
        waiters: Int, dead: Locked<Int>, outcome: @escaping @Sendable () throws -> String
    ) async throws -> (first: CRUDError?, waiters: [CRUDError?], refresher: TokenRefresher) {
        let started = Promise<Void>()
        let release = Promise<Void>()
        let auth = TokenRefresher(token: "stale") { _ in
            started.succeed(())
            try await release.future.value
            return try outcome()
        }
        let api = API(baseURL: testBase, transport: server(counting: dead)).with {
            $0.middleware.insert(auth, after: .retry)
            $0.middleware.removeAll(named: .coalescing)
        }
        let first = Task { await crudError { try await api.get("me") } }
        try await started.future.value
        let others = (0..<waiters).map { index in Task { await crudError { try await api.get("people/\(index)") } } }
        while await auth.waitingForRefresh < waiters + 1 { await Task.yield() }
        release.succeed(())
        var errors: [CRUDError?] = []
        for other in others { errors.append(await other.value) }
        return (await first.value, errors, auth)
    }

    @Test func waitersOfARefreshThatThrowsFailWithItsErrorAndSendNothing() async throws {
        let dead = Locked(0)
        let (first, waiters, auth) = try await waitersOfAFailedRefresh(waiters: 200, dead: dead) {
            throw CRUDError.httpStatus(HTTPResponse(status: 400, body: Data("refresh token revoked".utf8)))
        }
        #expect(first?.status == 400)
        #expect(waiters.map { $0?.status } == Array(repeating: 400, count: 200))
        // Only the request that found the token dead carried it; none of the 200 waiters did.
        #expect(dead.withLock { $0 } == 1)
        #expect(await auth.refreshCount == 1)
    }

    @Test func waitersOfARefreshThatFailsWithoutACRUDErrorFailWithTheOriginal401() async throws {
        let dead = Locked(0)
        let (first, waiters, _) = try await waitersOfAFailedRefresh(waiters: 20, dead: dead) {
            throw CancellationError()
        }
        #expect(first?.status == 401)
        #expect(waiters.map { $0?.status } == Array(repeating: 401, count: 20))
        #expect(dead.withLock { $0 } == 1)
    }

    @Test func waitersOfARefreshThatReturnsTheDeadTokenSendNothing() async throws {
        let dead = Locked(0)
        let (first, waiters, _) = try await waitersOfAFailedRefresh(waiters: 20, dead: dead) { "stale" }
        #expect(first?.status == 401)
        #expect(waiters.map { $0?.status } == Array(repeating: 401, count: 20))
        #expect(dead.withLock { $0 } == 1)
    }
}
