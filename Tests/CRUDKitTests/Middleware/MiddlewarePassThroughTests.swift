import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// `Middleware.passesThrough(_:context:)`: the chain skips a middleware that says it has nothing to do for a
/// request (its `intercept` is not called; the request reaches the transport unchanged), asks it again at each
/// request and at each attempt, and calls one that says otherwise.
@Suite struct MiddlewarePassThroughTests {
    /// Stamps a header when called; passes through while `idle` holds.
    private struct Stamp: Middleware {
        let idle: Locked<Bool>
        let asked: Locked<Int>
        let called: Locked<Int>

        func passesThrough(_ request: HTTPRequest, context: MiddlewareContext) -> Bool {
            asked.withLock { $0 += 1 }
            return idle.withLock { $0 }
        }

        func intercept(
            _ request: HTTPRequest, context: MiddlewareContext, next: @escaping MiddlewareNext
        ) async throws -> HTTPResponse {
            called.withLock { $0 += 1 }
            var request = request
            request.headers["X-Stamp"] = "1"
            return try await next(request, context)
        }
    }

    @Test func aMiddlewareWithNothingToDoIsSkippedAndOneWithWorkIsCalled() async throws {
        let stubs = StubTransport().on(.get, "people/1", sequence: [.status(503), .json(["id": 1])])
        let idle = Locked(true)
        let asked = Locked(0)
        let called = Locked(0)
        let stamp = Stamp(idle: idle, asked: asked, called: called)
        let policy = RetryPolicy(maxAttempts: 2, initialDelay: .zero, jitter: 0)
        var middleware: [any Middleware] = .standard.inserting(RetryMiddleware(policy: policy))
        middleware.insert(stamp, after: .retry)
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: stubs, clock: ManualClock(), middleware: middleware))
        _ = try await api.get("people/1")
        // Asked at each attempt, called at none: both attempts went out without the stamp.
        #expect(asked.withLock { $0 } == 2)
        #expect(called.withLock { $0 } == 0)
        #expect(stubs.recorder.requests.allSatisfy { $0.headers["X-Stamp"] == nil })
        idle.withLock { $0 = false }
        _ = try await api.get("people/1")
        #expect(called.withLock { $0 } == 1)
        #expect(stubs.recorder.requests.last?.headers["X-Stamp"] == "1")
    }
}
