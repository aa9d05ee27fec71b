import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// Records the order in which a per-attempt middleware runs, on the way out and on the way back.
private struct Tracing: Middleware {
    let label: String
    let trace: Locked<[String]>

    var name: MiddlewareName { MiddlewareName("trace-\(label)") }

    func intercept(
        _ request: HTTPRequest, context: MiddlewareContext, next: @escaping MiddlewareNext
    ) async throws -> HTTPResponse {
        trace.withLock { $0.append("adapt \(label)") }
        var request = request
        request.headers.add(name: "X-Trace", value: label)
        defer { trace.withLock { $0.append("back \(label)") } }
        return try await next(request, context)
    }
}

/// Turns `200 {"error": {"message": …}}` into a validation failure, the way StreemNetworking's `validate` did.
private let errorBodyValidator = ClosureMiddleware.validate { response in
    struct Body: Decodable { struct Problem: Decodable { var message: String }; var error: Problem? }
    if let problem = try? JSONDecoder().decode(Body.self, from: response.body).error {
        throw CRUDError.validation(message: problem.message, response: response)
    }
}

/// The short ways to extend a request, all of them middleware (`.adapt`, `.validate`) or a retry policy's `decide`
/// closure: what `Interceptor`'s `adapt`, `validate`, `decide` and `retry` did.
@Suite struct MiddlewareFactoryTests {
    @Test func perAttemptMiddlewareRunsInOrderOnEveryAttempt() async throws {
        let trace = Locked<[String]>([])
        let transport = StubTransport().on(nil, "**") { request in
            trace.withLock {
                $0.append("send \(request.request.headers.values(for: "X-Trace").joined(separator: ","))")
            }
            return request.recorded.index == 0 ? .json(text: "{}", status: 503) : .json(text: "{}")
        }
        let policy = RetryPolicy(maxAttempts: 2, jitter: 0) { _, _, _ in
            trace.withLock { $0.append("decide") }
            return .doNotRetry
        }
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: transport, clock: ManualClock(),
                middleware: [RetryMiddleware(policy: policy), ValidationMiddleware(), CoalescingMiddleware()])
        ).with {
            $0.middleware.insert(Tracing(label: "b", trace: trace), after: .retry)
            $0.middleware.insert(Tracing(label: "a", trace: trace), after: .retry)
        }
        _ = try await api.get("people")
        #expect(
            trace.withLock { $0 } == [
                "adapt a", "adapt b", "send a,b", "back b", "back a", "decide",
                "adapt a", "adapt b", "send a,b", "back b", "back a",
            ])
    }

    @Test func adaptersReadValuesAtSendTime() async throws {
        let token = Locked("first")
        let transport = StubTransport().on(nil, "**", .json(text: "{}"))
        let api = API(baseURL: testBase, transport: transport).with {
            $0.middleware.insert(
                .adapt { request in
                    var request = request
                    request.headers["Authorization"] = "Bearer " + token.withLock { $0 }
                    return request
                }, after: .retry)
        }
        _ = try await api.get("me")
        token.withLock { $0 = "second" }
        _ = try await api.get("me")
        #expect(transport.recorder.requests.map { $0.header("Authorization") } == ["Bearer first", "Bearer second"])
    }

    @Test func aValidatorTurnsAnErrorBodyIntoAFailure() async {
        let body = #"{"error": {"type": "DataException", "message": "no data", "code": 800}}"#
        let api = API(baseURL: testBase, transport: StubTransport().on(nil, "**", .json(text: body))).with {
            $0.middleware.insert(errorBodyValidator, after: .validation)
        }
        let error = await crudError { try await api.get("track/313555658769") }
        guard case .validation(let message, let response) = error else { return #expect(Bool(false)) }
        #expect(message == "no data")
        #expect(response.status == 200)
    }

    @Test func closureValidatorsWrapTheirErrors() async {
        struct Refused: Error, CustomStringConvertible { var description: String { "refused" } }
        let api = API(baseURL: testBase, transport: StubTransport().on(nil, "**", .json(text: "{}"))).with {
            $0.middleware.insert(.validate { _ in throw Refused() }, after: .validation)
        }
        let error = await crudError { try await api.get("x") }
        guard case .validation(let message, _) = error else { return #expect(Bool(false)) }
        #expect(message == "refused")
    }

    @Test func headersAnAdapterAddsAreMarkedByTheAPIsSecretWords() async throws {
        let transport = StubTransport().on(nil, "**", .json(text: "{}"))
        let redaction = Redaction(secretNames: Redaction.defaultSecretNames.union(["pin"]))
        let api = API(configuration: APIConfiguration(baseURL: testBase, transport: transport, redaction: redaction))
            .with {
                $0.middleware.insert(
                    .adapt { request in
                        var request = request
                        request.headers["X-Card-Pin"] = "pin-s3cret"
                        return request
                    }, after: .retry)
            }
        _ = try await api.get("me")
        let sent = try #require(transport.recorder.requests.first?.request)
        #expect(sent.headers["X-Card-Pin"] == "pin-s3cret")
        // Marked, so a redirect to another origin drops it and a log hides it.
        #expect(sent.sensitiveHeaderNames.contains("x-card-pin"))
    }

    @Test func aFailingAdapterStopsTheRequest() async {
        struct NoToken: Error {}
        let transport = StubTransport().on(nil, "**", .json(text: "{}"))
        let api = API(baseURL: testBase, transport: transport).with {
            $0.middleware.insert(.adapt { _ in throw NoToken() }, after: .retry)
        }
        #expect((await crudError { try await api.get("x") })?.caseName == "invalidRequest")
        #expect(transport.recorder.count == 0)
    }

    @Test func decideFailEndsTheSessionWithoutRetrying() async {
        let sessionEnded = Locked(false)
        let transport = StubTransport().on(nil, "**", .json(text: "{}", status: 401))
        let policy = RetryPolicy(maxAttempts: 5, initialDelay: .zero) { _, error, _ in
            guard error.status == 401 else { return .retry(after: .zero) }
            sessionEnded.withLock { $0 = true }
            return .fail(error)
        }
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: transport, clock: ManualClock(),
                middleware: [RetryMiddleware(policy: policy), ValidationMiddleware(), CoalescingMiddleware()]))
        let error = await crudError { try await api.get("me") }
        #expect(error?.status == 401)
        #expect(sessionEnded.withLock { $0 })
        #expect(transport.recorder.count == 1)
    }

    @Test func decideComesFirstAndMayReplaceTheError() async {
        let transport = StubTransport().on(
            nil, "**", sequence: [.json(text: "{}", status: 500), .json(text: "{}", status: 500), .json(text: "{}")])
        let clock = ManualClock()
        let policy = RetryPolicy(maxAttempts: 1) { _, _, context in
            context.attempt < 3 ? .retry(after: .seconds(2)) : .doNotRetry
        }
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: transport, clock: clock,
                middleware: [RetryMiddleware(policy: policy), ValidationMiddleware(), CoalescingMiddleware()]))
        _ = try? await api.post("jobs")
        #expect(transport.recorder.count == 3)
        #expect(clock.sleeps == [.seconds(2), .seconds(2)])

        let replacing = API(
            baseURL: testBase, transport: StubTransport().on(nil, "**", .json(text: "{}", status: 500)),
            middleware: .standard.inserting(
                RetryMiddleware(
                    policy: RetryPolicy(maxAttempts: 1) { _, _, _ in .fail(.invalidRequest(reason: "maintenance")) })))
        #expect((await crudError { try await replacing.get("x") })?.caseName == "invalidRequest")
    }

    @Test func decideCannotLoopForever() async {
        let transport = StubTransport().on(nil, "**", .json(text: "{}", status: 500))
        let api = API(
            baseURL: testBase, transport: transport,
            middleware: .standard.inserting(
                RetryMiddleware(policy: RetryPolicy(maxAttempts: 1) { _, _, _ in .retry(after: .zero) })))
        #expect((await crudError { try await api.get("x") })?.status == 500)
        #expect(transport.recorder.count == API.attemptLimit)
    }
}
