import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

extension NetworkTests {
    /// Issue 29: a `TokenRefresher` whose refresh goes through the API it guards, attacked through
    /// `URLSessionTransport` on a loopback server (the contract's checks "token refresh through the guarded API" and
    /// "token refresh answered 401" cover the working refresh and the rejected one on every transport).
    @Suite struct TokenRefreshLoopbackTests {
        private struct Tokens: Decodable, Sendable { var access: String }

        /// A refresher whose refresh posts to `token/refresh` through the API `guarded` holds, and that API.
        private static func guardedAPI(
            _ server: LoopbackServer, refreshTimeout: TimeInterval = 30
        ) -> (TokenRefresher, API) {
            let guarded = Locked(WeakAPI())  // weakly: the API holds the refresher that holds this closure
            let auth = TokenRefresher(token: "stale", refreshTimeout: refreshTimeout) { _ in
                let api = try #require(guarded.withLock { $0.api })
                let tokens: Tokens = try await api.post("token/refresh", body: .json(["refresh": "r-1"]))
                return tokens.access
            }
            let api = API(baseURL: server.baseURL).with { $0.middleware.insert(auth, after: .retry) }
            guarded.withLock { $0.api = api }
            return (auth, api)
        }

        /// Answers `Bearer fresh` with 200 and any other token with 401.
        private static func resource(_ request: LoopbackRequest) -> LoopbackReply {
            let status = request.headers["Authorization"] == "Bearer fresh" ? 200 : 401
            return .response(
                HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data("{}".utf8)))
        }

        private static let fresh = LoopbackReply.response(
            HTTPResponse(
                status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"access": "fresh"}"#.utf8)))

        /// A refresh endpoint that never answers: the refresh's own request reaches it, the refresh times out and
        /// its request is cancelled, every waiter fails with the refresh timeout, and the next request refreshes anew.
        @Test(.timeLimit(.minutes(TestEnvironment.minutes(1))))
        func aHangingRefreshEndpointTimesOutAndTheNextRequestRefreshesAgain() async throws {
            let hangs = Locked(true)
            let server = LoopbackServer(synchronousHandler: { request in
                guard request.path.hasSuffix("/token/refresh") else { return Self.resource(request) }
                return hangs.withLock { $0 } ? .fault(.neverAnswer) : Self.fresh
            })
            try server.start()
            defer { server.stop() }
            // Every request must get its 401 and join while the refresh runs: 5 s (30 s under a sanitizer, where a
            // loaded pool took over 2 s to start a task). With 1 s, a request that came later started a second
            // refresh.
            let limit: TimeInterval = TestEnvironment.underSanitizer ? 30 : 5
            let (auth, api) = Self.guardedAPI(server, refreshTimeout: limit)
            let errors = await withTaskGroup(of: CRUDError?.self) { group in
                for index in 0..<10 { group.addTask { await crudError { try await api.get("people/\(index)") } } }
                var errors: [CRUDError?] = []
                for await error in group { errors.append(error) }
                return errors
            }
            let timedOut = errors.filter {
                if case .timedOut(.tokenRefresh(let seconds)) = $0 { return seconds == limit }
                return false
            }
            #expect(timedOut.count == 10, "\(errors.prefix(3))")
            // The refresh's own request reached the server (before the fix it waited for itself and never left).
            #expect(server.requests.filter { $0.path.hasSuffix("/token/refresh") }.count == 1)
            #expect(await auth.refreshCount == 1)

            hangs.withLock { $0 = false }
            let response = try await api.get("again")
            #expect(response.status == 200)
            #expect(await auth.refreshCount == 2)
            #expect(await auth.currentToken == "fresh")
        }

        /// Cancelling the request whose 401 started the refresh ends that request, not the refresh: the requests
        /// that came after it get the new token.
        @Test(.timeLimit(.minutes(TestEnvironment.minutes(1))))
        func cancellingTheFirstWaiterLeavesTheRefreshToTheOthers() async throws {
            let (arrived, arrivedContinuation) = AsyncStream<Void>.makeStream()
            let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
            let server = LoopbackServer { request in
                guard request.path.hasSuffix("/token/refresh") else { return Self.resource(request) }
                arrivedContinuation.yield()
                for await _ in release { break }
                return Self.fresh
            }
            try server.start()
            defer {
                releaseContinuation.finish()
                server.stop()
            }
            let (auth, api) = Self.guardedAPI(server)
            let first = Task { await crudError { try await api.get("first") } }
            var refreshes = arrived.makeAsyncIterator()
            _ = await refreshes.next()
            first.cancel()
            let firstError = await first.value
            #expect(firstError?.isCancelled == true, "\(String(describing: firstError))")

            let others = (0..<5).map { index in Task { try await api.get("people/\(index)").status } }
            releaseContinuation.yield()
            for other in others { #expect(try await other.value == 200) }
            #expect(await auth.refreshCount == 1)
            #expect(await auth.currentToken == "fresh")
            #expect(server.requests.filter { $0.path.hasSuffix("/token/refresh") }.count == 1)
        }

        /// A refresh that fails inside the closure (its answer does not decode) fails every waiter with that error,
        /// and the expired token is not refreshed again.
        @Test(.timeLimit(.minutes(TestEnvironment.minutes(1))))
        func aRefreshThatThrowsFailsTheWaitersOnce() async throws {
            let server = LoopbackServer(synchronousHandler: { request in
                guard request.path.hasSuffix("/token/refresh") else { return Self.resource(request) }
                return .response(
                    HTTPResponse(
                        status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"nope": 1}"#.utf8)))
            })
            try server.start()
            defer { server.stop() }
            let (auth, api) = Self.guardedAPI(server)
            let errors = await withTaskGroup(of: CRUDError?.self) { group in
                for index in 0..<10 { group.addTask { await crudError { try await api.get("people/\(index)") } } }
                var errors: [CRUDError?] = []
                for await error in group { errors.append(error) }
                return errors
            }
            let decoding = errors.filter {
                if case .decoding = $0 { return true }
                return false
            }
            #expect(decoding.count == 10, "\(errors.prefix(3))")
            let later = await crudError { try await api.get("later") }
            if case .decoding = later {} else { Issue.record("a later request: \(String(describing: later))") }
            #expect(await auth.refreshCount == 1)
            #expect(server.requests.filter { $0.path.hasSuffix("/token/refresh") }.count == 1)
        }
    }
}

/// The guarded API as the tests' refresh closures reach it: held weakly, because the API holds the refresher that
/// holds the closure (a strong reference keeps every such API alive: LeakSanitizer reports it).
private struct WeakAPI: Sendable {
    weak var api: API?
}
