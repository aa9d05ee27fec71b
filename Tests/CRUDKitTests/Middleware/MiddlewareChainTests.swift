import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// The middleware chain: custom middleware changing requests and responses, retrying, per request, and the
/// standard stages in their documented order, reordered and removed.
@Suite struct MiddlewareChainTests {
    private struct Person: Codable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    /// Counts the calls it sees; a static helper so closures capture no test instance.
    private static func counter(_ name: MiddlewareName, _ calls: Locked<[Int]>) -> ClosureMiddleware {
        .intercept(name) { request, context, next in
            calls.withLock { $0.append(context.attempt) }
            return try await next(request, context)
        }
    }

    private static func api(
        _ stubs: StubTransport,
        _ change: (inout APIConfiguration) -> Void = { _ in }
    ) -> API {
        var configuration = APIConfiguration(baseURL: testBase, transport: stubs, clock: ManualClock())
        change(&configuration)
        return API(configuration: configuration)
    }

    private static func kinds(_ events: [LogEvent]) -> [String] {
        events.map { event in
            switch event.kind {
            case .requestSent: "sent \(event.attempt)"
            case .responseReceived(let status): "received \(status) \(event.attempt)"
            case .failed(let error): "failed \(error.caseName) \(event.attempt)"
            case .retrying: "retrying \(event.attempt)"
            }
        }
    }

    // MARK: - Custom middleware

    @Test func aMiddlewareChangesTheRequest() async throws {
        let stubs = StubTransport().on(.get, "people/:id", .json(["id": 1, "name": "Ada"]))
        let api = Self.api(stubs) {
            $0.middleware.insert(
                .adapt("tenant") { request in
                    var request = request
                    request.headers["X-Tenant"] = "acme"
                    return request
                }, after: .retry)
        }
        let person: Person = try await api.get("people/1")
        #expect(person == Person(id: 1, name: "Ada"))
        #expect(stubs.recorder.last?.headers["X-Tenant"] == "acme")
    }

    @Test func aMiddlewareUnwrapsAnEnvelope() async throws {
        let stubs = StubTransport().on(.get, "people/:id", .json(["data": ["id": 7, "name": "Grace"], "meta": [:]]))
        let api = Self.api(stubs) {
            $0.middleware.insert(
                .transform("envelope") { response in
                    var response = response
                    response.body = try JSON(data: response.body)["data"].data()
                    return response
                }, after: .retry)
        }
        let person: Person = try await api.get("people/7")
        #expect(person == Person(id: 7, name: "Grace"))
    }

    @Test func aMiddlewareRetriesByCallingNextAgain() async throws {
        let stubs = StubTransport().on(.get, "people/:id", sequence: [.status(503), .json(["id": 2, "name": "Bo"])])
        let api = Self.api(stubs) {
            $0.middleware.insert(
                .intercept("again") { request, context, next in
                    do {
                        return try await next(request, context)
                    } catch let error as CRUDError where error.status == 503 {
                        return try await next(request, context)
                    }
                }, after: .retry)
        }
        let person: Person = try await api.get("people/2")
        #expect(person.id == 2)
        #expect(stubs.recorder.count == 2)
    }

    @Test func anErrorThatIsNotACRUDErrorReachesTheCallerAsATransportError() async throws {
        struct Refused: Error {}
        let stubs = StubTransport().on(.get, "people", .json([]))
        let api = Self.api(stubs) {
            $0.middleware.insert(.intercept("refuse") { _, _, _ in throw Refused() }, after: .validation)
        }
        let error = await #expect(throws: CRUDError.self) { try await api.get("people") as [Person] }
        guard case .transport(let failure) = error else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        #expect(failure.underlying is Refused)
        #expect(stubs.recorder.count == 0)
    }

    // MARK: - Per request

    @Test func perRequestMiddlewareRunsOnceAroundTheWholeCall() async throws {
        let stubs = StubTransport().on(.get, "people/:id", sequence: [.status(503), .json(["id": 3, "name": "Cy"])])
        let perAttempt = Locked<[Int]>([])
        let perRequest = Locked<[Int]>([])
        let api = Self.api(stubs) {
            $0.middleware.insert(RetryMiddleware(policy: RetryPolicy(maxAttempts: 2, jitter: 0)))
            $0.middleware.insert(Self.counter("attempts", perAttempt), after: .retry)
        }
        var request = Request<Person>(.get, "people/3")
        request.middleware = [
            Self.counter("call", perRequest),
            .adapt("mark") { request in
                var request = request
                request.headers["X-Only-This"] = "1"
                return request
            },
        ]
        let person = try await api.send(request)
        #expect(person.id == 3)
        #expect(perRequest.withLock { $0 } == [1])  // outside retry: once, before the first attempt
        #expect(perAttempt.withLock { $0 } == [1, 2])
        #expect(stubs.recorder.requests.map { $0.headers["X-Only-This"] } == ["1", "1"])

        // Another request through the same API does not get it.
        _ = try await api.get("people/3") as Person
        #expect(stubs.recorder.last?.headers["X-Only-This"] == nil)
        #expect(perRequest.withLock { $0 } == [1])
    }

    // MARK: - The standard stages

    @Test func theDefaultOrderIsTheDocumentedOne() throws {
        let expected: [MiddlewareName] = [.idempotencyKeys, .retry, .logging, .validation, .coalescing, .cache]
        // The default list holds the stages that are on by default, in the standard order.
        let defaults: [MiddlewareName] = [.retry, .validation, .coalescing]
        #expect([any Middleware].standard.names == defaults)
        #expect(APIConfiguration(baseURL: nil).middleware.names == defaults)
        #expect(API(baseURL: nil).configuration.middleware.names == defaults)
        // Every standard stage added with insert(_:), in any order, lands at its place in the standard order.
        var all: [any Middleware] = .standard
        all.insert(CacheMiddleware(ResponseCache()))
        all.insert(LoggingMiddleware { _ in })
        all.insert(IdempotencyKeyMiddleware())
        #expect(all.names == expected)
        #expect([any Middleware].standardOrder == expected)
        // The table in the documentation of `[any Middleware].standard` lists the stages in this order.
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/CRUDKit/Client/Middleware/Middleware+Standard.swift")
        let prefix = "    /// | ``MiddlewareName/"
        let rows = try String(contentsOf: source, encoding: .utf8).split(separator: "\n")
            .compactMap { line -> String? in
                guard line.hasPrefix(prefix), let end = line.dropFirst(prefix.count).firstIndex(of: "`") else {
                    return nil
                }
                return String(line[line.index(line.startIndex, offsetBy: prefix.count)..<end])
            }
        #expect(rows == expected.map(\.rawValue))  // the names as spelled in the table
    }

    @Test func theStagesRunInTheirOrder() async throws {
        // A probe inside each stage sees what the stages outside it did: the key (idempotency keys), the attempt
        // (retry), the raw 503 as a response (inside validation) rather than as an error (outside it).
        let stubs = StubTransport().on(.post, "payments", sequence: [.status(503), .json(["ok": true])])
        let seen = Locked<[String]>([])
        let api = Self.api(stubs) {
            $0.middleware.insert(IdempotencyKeyMiddleware())
            $0.middleware.insert(RetryMiddleware(policy: RetryPolicy(maxAttempts: 2, jitter: 0)))
            $0.middleware.insert(
                .intercept("outside validation") { request, context, next in
                    do {
                        return try await next(request, context)
                    } catch let error as CRUDError {
                        seen.withLock { $0.append("outside: threw \(error.status ?? 0)") }
                        throw error
                    }
                }, before: .validation)
            $0.middleware.insert(
                .intercept("inside validation") { request, context, next in
                    let response = try await next(request, context)
                    let key = request.headers["Idempotency-Key"] != nil
                    seen.withLock { $0.append("inside: \(response.status) attempt \(context.attempt) key \(key)") }
                    return response
                }, after: .validation)
        }
        _ = try await api.post("payments")
        #expect(
            seen.withLock { $0 } == [
                "inside: 503 attempt 1 key true", "outside: threw 503", "inside: 200 attempt 2 key true",
            ])
        let keys = Set(stubs.recorder.requests.compactMap { $0.headers["Idempotency-Key"] })
        #expect(keys.count == 1)  // the same key on both attempts: the stage is outside retry
    }

    @Test func loggingOutsideRetryLogsTheCallNotEachAttempt() async throws {
        func run(_ change: @escaping (inout APIConfiguration) -> Void) async throws -> [String] {
            let stubs = StubTransport().on(.get, "people", sequence: [.status(503), .json([])])
            let events = Locked<[LogEvent]>([])
            let api = Self.api(stubs) {
                $0.middleware.insert(RetryMiddleware(policy: RetryPolicy(maxAttempts: 2, jitter: 0)))
                $0.middleware.insert(LoggingMiddleware({ event in events.withLock { $0.append(event) } }))
                change(&$0)
            }
            _ = try await api.get("people") as [Person]
            return Self.kinds(events.withLock { $0 })
        }
        let inside = try await run { _ in }
        #expect(
            inside == [
                "sent 1", "received 503 1", "failed httpStatus(503) 1", "retrying 1", "sent 2", "received 200 2",
            ])
        let outside = try await run { configuration in
            guard let logging = configuration.middleware.first(where: { $0 is LoggingMiddleware }) else { return }
            configuration.middleware.removeAll(named: .logging)
            configuration.middleware.insert(logging, before: .retry)
        }
        #expect(outside == ["sent 1", "retrying 1", "received 200 1"])
    }

    @Test func withoutTheValidationStageABadStatusIsAResponse() async throws {
        let stubs = StubTransport().on(.get, "people", .status(404))
        let api = Self.api(stubs) { $0.middleware.removeAll(named: .validation) }
        let response = try await api.send(HTTPRequest(url: testBase.appendingPathComponent("people")))
        #expect(response.status == 404)
        let strict = Self.api(stubs)
        await #expect(throws: CRUDError.self) {
            try await strict.send(HTTPRequest(url: testBase.appendingPathComponent("people")))
        }
    }

    @Test func aMiddlewareCanAnswerWithoutTheTransport() async throws {
        let stubs = StubTransport()
        let api = Self.api(stubs) {
            $0.middleware.append(
                .intercept("offline") { request, _, _ in
                    HTTPResponse(
                        status: 200, headers: [:], body: Data(#"{"id":9,"name":"Local"}"#.utf8), url: request.url)
                })
        }
        let person: Person = try await api.get("people/9")
        #expect(person == Person(id: 9, name: "Local"))
        #expect(stubs.recorder.count == 0)
    }

    @Test func aPrebuiltPOSTGetsAnIdempotencyKeyFromTheStage() async throws {
        let stubs = StubTransport().on(.post, "payments", .json(["ok": true]))
        let api = Self.api(stubs) { $0.middleware.insert(IdempotencyKeyMiddleware()) }
        _ = try await api.send(HTTPRequest(method: .post, url: testBase.appendingPathComponent("payments")))
        #expect(stubs.recorder.last?.headers["Idempotency-Key"] != nil)
        let without = Self.api(stubs) {
            $0.middleware.insert(IdempotencyKeyMiddleware())
            $0.middleware.removeAll(named: .idempotencyKeys)
        }
        _ = try await without.post("payments")
        #expect(stubs.recorder.last?.headers["Idempotency-Key"] == nil)
    }

    @Test func aMiddlewareCanBeTestedOnItsOwn() async throws {
        let api = API(baseURL: testBase, transport: StubTransport())
        let request = HTTPRequest(url: testBase.appendingPathComponent("people/12"))
        let context = MiddlewareContext(api: api, request: request)
        #expect(context.attempt == 1)
        #expect(context.operationID == "GET /v1/people/12")
        let envelope = ClosureMiddleware.transform("status") { response in
            var response = response
            response.status = 299
            return response
        }
        let response = try await envelope.intercept(request, context: context) { request, _ in
            HTTPResponse(status: 200, headers: [:], body: Data(), url: request.url)
        }
        #expect(response.status == 299)
    }

    @Test func insertingBeforeOrAfterAMissingNameAppends() {
        var chain: [any Middleware] = .standard
        chain.insert(ClosureMiddleware("a") { r, c, n in try await n(r, c) }, before: "nowhere")
        chain.insert(ClosureMiddleware("b") { r, c, n in try await n(r, c) }, after: "nowhere")
        chain.insert(ClosureMiddleware("c") { r, c, n in try await n(r, c) }, after: .retry)
        #expect(chain.names == [.retry, "c", .validation, .coalescing, "a", "b"])
    }
}

@Suite struct TokenRefresherMiddlewareTests {
    private static func answer(_ request: StubRequest) -> StubResponse {
        request.request.headers["Authorization"] == "Bearer fresh" ? .json(["id": 1]) : .status(401)
    }

    @Test func aRefresherInTheChainRefreshesOnceAndSendsAgain() async throws {
        let stubs = StubTransport().on(.get, "people/:id", handler: Self.answer)
        let refresher = TokenRefresher(token: "stale") { _ in "fresh" }
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: stubs, deadline: nil, clock: ManualClock()  // its sleeps return at once
            ).with {
                $0.middleware.insert(refresher, after: .retry)
            })
        let json: JSON = try await api.get("people/1")
        #expect(json["id"].int == 1)
        #expect(await refresher.refreshCount == 1)
        #expect(stubs.recorder.requests.map { $0.headers["Authorization"] } == ["Bearer stale", "Bearer fresh"])
        #expect(api.configuration.middleware.names.contains(.tokenRefresh))
    }

    @Test func aRefreshThatDoesNotHelpFailsWithThe401() async throws {
        let stubs = StubTransport().on(.get, "people/:id", .status(401))
        let refresher = TokenRefresher(token: "stale") { _ in "still-bad" }
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: stubs, deadline: nil, clock: ManualClock()  // its sleeps return at once
            ).with {
                $0.middleware.insert(refresher, after: .retry)
            })
        let error = await #expect(throws: CRUDError.self) { try await api.get("people/1") as JSON }
        #expect(error?.status == 401)
        #expect(stubs.recorder.count == 2)  // sent once more with the new token, never a third time
    }
}

extension APIConfiguration {
    /// A copy changed by `change` (for building configurations in one expression).
    fileprivate func with(_ change: (inout APIConfiguration) -> Void) -> APIConfiguration {
        var copy = self
        change(&copy)
        return copy
    }
}
