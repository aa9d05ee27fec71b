import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

extension NetworkTests {
    /// The API pipeline over the real `URLSessionTransport` and a loopback server.
    @Suite struct APILoopbackTests {
        @Test func concurrentExpiredRequestsRefreshOnceOverTheNetwork() async throws {
            let server = LoopbackServer { request in
                request.headers["Authorization"] == "Bearer fresh"
                    ? jsonResponse(#"{"id": 1, "firstName": "Ada", "lastName": "Lovelace"}"#)
                    : jsonResponse(#"{"detail": "expired"}"#, status: 401)
            }
            try server.start()
            defer { server.stop() }
            let refreshes = Locked(0)
            let auth = TokenRefresher(token: "stale") { _ in
                refreshes.withLock { $0 += 1 }
                return "fresh"
            }
            let api = API(baseURL: server.baseURL, transport: URLSessionTransport()).with {
                $0.middleware.insert(auth, after: .retry)
            }
            let people = try await withThrowingTaskGroup(of: StubPerson.self) { group in
                for index in 0..<20 { group.addTask { try await api.get("people/\(index)") } }
                return try await group.reduce(into: [StubPerson]()) { $0.append($1) }
            }
            #expect(people.count == 20)
            #expect(refreshes.withLock { $0 } == 1)
            let fresh = server.requests.filter { $0.headers["Authorization"] == "Bearer fresh" }
            #expect(fresh.count == 20)
        }

        @Test func retryAfterAndEncodedSegmentsReachTheServer() async throws {
            let attempts = Locked(0)
            let server = LoopbackServer { request in
                let earlier = attempts.withLock { count -> Int in
                    count += 1
                    return count - 1
                }
                return earlier == 0
                    ? jsonResponse("{}", status: 429, headers: ["Retry-After": "2"])
                    : jsonResponse(#"{"firstName": "A", "lastName": "B"}"#)
            }
            try server.start()
            defer { server.stop() }
            let clock = ManualClock()
            let events = Locked<[String]>([])
            let api = API(
                configuration: APIConfiguration(
                    baseURL: server.baseURL.appendingPathComponent("v1"), headers: ["Authorization": "Bearer s3cret"],
                    transport: URLSessionTransport(), clock: clock,
                    middleware: [
                        RetryMiddleware(policy: RetryPolicy(maxAttempts: 3)),
                        LoggingMiddleware({ event in events.withLock { $0.append("\(event) \(event.headers)") } }),
                        ValidationMiddleware(), CoalescingMiddleware(),
                    ]))
            let person = try await api.get(Endpoint.segments(["people", "../admin"]), as: StubPerson.self)
            #expect(person.firstName == "A")
            #expect(clock.sleeps == [.seconds(2)])
            #expect(server.requests.map(\.target) == ["/v1/people/..%2Fadmin", "/v1/people/..%2Fadmin"])
            #expect(server.requests.last?.headers["Authorization"] == "Bearer s3cret")
            #expect(!events.withLock { $0.joined() }.contains("s3cret"))
        }
    }
}
