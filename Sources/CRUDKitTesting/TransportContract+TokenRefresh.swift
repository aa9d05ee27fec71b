import CRUDKit
import Foundation

// The contract's checks of a token refresh that goes through the API it guards (issue 29): the refresh's own
// request reaches the server on this transport, and a refresh endpoint that answers 401 ends everything at once.

extension TransportContract {
    /// A ``TokenRefresher`` whose refresh posts to the very API it guards (and to a second API sharing it): the
    /// refresh request arrives without the expired token, 100 requests failing together cause exactly one refresh,
    /// and every one of them is answered with the new token.
    var tokenRefreshThroughTheGuardedAPI: Check {
        Check(name: "token refresh through the guarded API") {
            let server = TokenServer(refreshAnswers: 200)
            try await Self.withServer(contract: self, handler: server.answer) { loopback, transport in
                let (auth, guarded) = Self.refresherThroughTheGuardedAPI()
                // Every first attempt waits, after the refresher set its token, until all 100 have: all 100 go
                // out with the stale token and come back 401 together. The refresh's own request is the 101st.
                let barrier = ContractBarrier(count: 100)
                let api = API(baseURL: loopback.baseURL, transport: transport).with {
                    $0.middleware.insert(auth, after: .retry)
                    $0.middleware.insert(
                        .intercept("barrier") { request, context, next in
                            if context.attempt == 1 { await barrier.arrive() }
                            return try await next(request, context)
                        }, after: .tokenRefresh)
                }
                guarded.withLock { $0.api = api }
                let statuses = try await Self.statuses(of: 100, through: api)
                try Self.expect(statuses == [200], "the 100 requests ended with \(statuses)")
                let first = server.counts
                try Self.expect(first.expired == 100, "\(first.expired) requests were answered 401, expected 100")
                try Self.expect(first.refreshes == 1, "the server saw \(first.refreshes) refresh requests")
                let refreshed = await auth.refreshCount
                try Self.expect(refreshed == 1, "\(refreshed) refreshes ran")
                try Self.expect(first.accepted == 100, "\(first.accepted) requests carried the new token")
                try Self.expect(!first.refreshCarriedToken, "the refresh request carried the expired token")

                // A second API sharing the refresher: its requests' refresh goes through the first API.
                server.expireTokens()
                let other = API(baseURL: loopback.baseURL, transport: transport).with {
                    $0.middleware.insert(auth, after: .retry)
                }
                let again = try await Self.statuses(of: 20, through: other)
                try Self.expect(again == [200], "the second API's requests ended with \(again)")
                let second = server.counts
                try Self.expect(second.refreshes == 2, "the server saw \(second.refreshes) refresh requests in all")
                let (refreshedAgain, token) = (await auth.refreshCount, await auth.currentToken)
                try Self.expect(refreshedAgain == 2, "\(refreshedAgain) refreshes ran in all")
                try Self.expect(token == "fresh-2", "the token is \(token ?? "none")")
            }
        }
    }

    /// A refresh endpoint that answers 401 fails the refresh at once with that 401 (it is not refreshed, and not
    /// waited for until the refresh timeout), fails every request waiting for it, and is not tried again.
    var tokenRefreshRejected: Check {
        Check(name: "token refresh answered 401") {
            let server = TokenServer(refreshAnswers: 401)
            try await Self.withServer(contract: self, handler: server.answer) { loopback, transport in
                let (auth, guarded) = Self.refresherThroughTheGuardedAPI()
                let api = API(baseURL: loopback.baseURL, transport: transport).with {
                    $0.middleware.insert(auth, after: .retry)
                }
                guarded.withLock { $0.api = api }
                let clock = ContinuousClock()
                let started = clock.now
                var failures: [String] = []
                await withTaskGroup(of: String?.self) { group in
                    for index in 0..<20 {
                        group.addTask { await Self.refreshEndpointRejection(api: api, path: "people/\(index)") }
                    }
                    for await failure in group { failures += failure.map { [$0] } ?? [] }
                }
                let took = clock.now - started
                try Self.expect(failures.isEmpty, "\(failures.count) requests: \(failures.prefix(3))")
                try Self.expect(took < .seconds(20), "the requests ended after \(took), at the refresh timeout")
                try Self.expect(server.counts.refreshes == 1, "the server saw \(server.counts.refreshes) refreshes")

                // The expired token is not refreshed again: the next request fails as the refresh did.
                let later = await Self.refreshEndpointRejection(api: api, path: "later")
                try Self.expect(later == nil, "a later request: \(later ?? "")")
                try Self.expect(server.counts.refreshes == 1, "the server saw \(server.counts.refreshes) refreshes")
                let refreshed = await auth.refreshCount
                try Self.expect(refreshed == 1, "\(refreshed) refreshes ran")
            }
        }
    }

    /// The statuses `count` concurrent `GET`s through `api` ended with, each once (a failure as its status, or
    /// -1 without one).
    private static func statuses(of count: Int, through api: API) async throws -> Set<Int> {
        await withTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                group.addTask {
                    do {
                        return try await api.get("people/\(index)").status
                    } catch {
                        return (error as? CRUDError)?.status ?? -1
                    }
                }
            }
            var statuses: Set<Int> = []
            for await status in group { statuses.insert(status) }
            return statuses
        }
    }

    /// What is wrong with how a `GET` of `path` failed, or `nil` when it failed with the refresh endpoint's 401.
    private static func refreshEndpointRejection(api: API, path: String) async -> String? {
        do {
            let response = try await api.get(path)
            return "answered \(response.status)"
        } catch CRUDError.httpStatus(let response) {
            if response.status == 401, response.url?.path.hasSuffix("/token/refresh") == true { return nil }
            return "failed with \(response.status) from \(response.url?.path ?? "?")"
        } catch {
            return "failed with \(error)"
        }
    }
}

/// The server of the token checks: `POST /token/refresh` with the refresh token issues `fresh-1`, `fresh-2`, …
/// (or answers with `refreshAnswers` when that is not 200); any other request is answered 200 with the latest
/// token issued and 401 without it.
extension TransportContract {
    /// A refresher with the stale token whose refresh posts to `token/refresh` through the API the returned box
    /// holds (set it once the API exists): the same-API form the two token checks share.
    fileprivate static func refresherThroughTheGuardedAPI() -> (TokenRefresher, Locked<WeakAPI>) {
        let guarded = Locked(WeakAPI())
        let auth = TokenRefresher(token: "stale", refreshTimeout: 20) { _ in
            guard let api = guarded.withLock({ $0.api }) else { throw CRUDError.cancelled }
            let tokens: TokenServer.Tokens = try await api.post(
                "token/refresh", body: .json(["refresh": TokenServer.refreshToken]))
            return tokens.access
        }
        return (auth, guarded)
    }
}

/// The guarded API as its refresh closure reaches it: held weakly, because the API holds the refresher that holds
/// the closure (a strong reference would keep every API of the checks alive: LeakSanitizer reports it).
struct WeakAPI: Sendable {
    weak var api: API?
}

private final class TokenServer: Sendable {
    struct Tokens: Codable, Sendable { var access: String }

    struct Counts {
        /// Requests answered 401 for their token.
        var expired = 0
        /// Requests answered 200 for their token.
        var accepted = 0
        /// Requests to the refresh endpoint.
        var refreshes = 0
        /// Whether a refresh request carried an `Authorization` header.
        var refreshCarriedToken = false
        /// The token accepted now.
        var valid: String?
    }

    static let refreshToken = "r-1"
    let refreshAnswers: Int
    private let state = Locked(Counts())

    init(refreshAnswers: Int) { self.refreshAnswers = refreshAnswers }

    var counts: Counts { state.withLock { $0 } }

    /// Stops accepting the tokens issued so far.
    func expireTokens() { state.withLock { $0.valid = nil } }

    @Sendable func answer(_ request: LoopbackRequest) throws -> LoopbackReply {
        let json: HTTPHeaders = ["Content-Type": "application/json"]
        if request.path.hasSuffix("/token/refresh") {
            let issued = state.withLock { counts -> String? in
                counts.refreshes += 1
                if request.headers["Authorization"] != nil { counts.refreshCarriedToken = true }
                guard refreshAnswers == 200, request.method == "POST", request.text.contains(Self.refreshToken)
                else { return nil }
                counts.valid = "fresh-\(counts.refreshes)"
                return counts.valid
            }
            guard let issued else {
                let status = refreshAnswers == 200 ? 400 : refreshAnswers
                return .response(HTTPResponse(status: status, headers: json, body: Data(#"{"detail": "no"}"#.utf8)))
            }
            return .response(HTTPResponse(status: 200, headers: json, body: Data(#"{"access": "\#(issued)"}"#.utf8)))
        }
        let accepted = state.withLock { counts -> Bool in
            let accepted = counts.valid.map { request.headers["Authorization"] == "Bearer " + $0 } ?? false
            if accepted { counts.accepted += 1 } else { counts.expired += 1 }
            return accepted
        }
        if accepted { return .response(HTTPResponse(status: 200, headers: json, body: Data(#"{"ok": true}"#.utf8))) }
        return .response(HTTPResponse(status: 401, headers: json, body: Data(#"{"detail": "expired"}"#.utf8)))
    }
}

/// Lets callers through only once `count` of them have arrived; later ones pass at once.
private actor ContractBarrier {
    private let count: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

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
