import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// What a TokenRefresher does after a refresh failed, and with a crowd of requests expiring together.
@Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct TokenRefresherAfterFailureTests {
    private func server(counting dead: Locked<Int>) -> StubTransport {
        StubTransport().on(nil, "**") { request in
            if request.recorded.header("Authorization") == "Bearer fresh" { return .json(text: "{}") }
            dead.withLock { $0 += 1 }
            return .json(text: #"{"detail": "expired"}"#, status: 401)
        }
    }

    @Test func aRequestAfterAFailedRefreshFailsWithoutRefreshingAgainUntilANewToken() async throws {
        let dead = Locked(0)
        let auth = TokenRefresher(token: "stale") { _ in
            throw CRUDError.httpStatus(HTTPResponse(status: 400, body: Data("revoked".utf8)))
        }
        let api = API(baseURL: testBase, transport: server(counting: dead)).with {
            $0.middleware.insert(auth, after: .retry)
        }
        #expect(await crudError { try await api.get("me") }?.status == 400)
        // The session is dead: each later request is sent once with the token it has (the documented behaviour) and
        // fails as the refresh did, without a refresh loop.
        for _ in 0..<5 { #expect(await crudError { try await api.get("me") }?.status == 400) }
        #expect(await auth.refreshCount == 1)
        #expect(dead.withLock { $0 } == 6)
        await auth.setToken("fresh")
        _ = try await api.get("me")
    }

    @Test func aThousandConcurrent401sRefreshOnce() async throws {
        let dead = Locked(0)
        let auth = TokenRefresher(token: "stale") { _ in
            await Task.yield()
            return "fresh"
        }
        let api = API(baseURL: testBase, transport: server(counting: dead)).with {
            $0.middleware.insert(auth, after: .retry)
        }
        let failures = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<1_000 {
                group.addTask { (try? await api.get("people/\(index % 50)")) == nil }
            }
            var failures = 0
            for await failed in group where failed { failures += 1 }
            return failures
        }
        #expect(failures == 0)
        #expect(await auth.refreshCount == 1)
        #expect(dead.withLock { $0 } <= 1_000)
    }
}
