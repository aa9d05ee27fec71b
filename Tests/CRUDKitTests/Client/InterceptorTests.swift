import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// Records the order in which interceptor steps run.
private struct Tracing: Interceptor {
    let name: String
    let trace: Locked<[String]>

    func adapt(_ request: HTTPRequest, context: InterceptorContext) async throws -> HTTPRequest {
        trace.withLock { $0.append("adapt \(name)") }
        var request = request
        request.headers.add(name: "X-Trace", value: name)
        return request
    }

    func validate(_ response: HTTPResponse, for request: HTTPRequest, context: InterceptorContext) throws {
        trace.withLock { $0.append("validate \(name)") }
    }

    func decide(on error: CRUDError, for request: HTTPRequest, context: InterceptorContext) async -> FailureDecision {
        trace.withLock { $0.append("decide \(name)") }
        return .proceed
    }

    func retry(
        _ request: HTTPRequest, failedWith error: CRUDError, context: InterceptorContext
    ) async
        -> RetryDecision
    {
        trace.withLock { $0.append("retry \(name)") }
        return .doNotRetry
    }
}

/// Turns `200 {"error": {"message": …}}` into a validation failure, the way StreemNetworking's `validate` did.
private struct ErrorBodyValidator: Interceptor {
    struct Body: Decodable { struct Problem: Decodable { var message: String }; var error: Problem? }

    func validate(_ response: HTTPResponse, for request: HTTPRequest, context: InterceptorContext) throws {
        if let problem = try? JSONDecoder().decode(Body.self, from: response.body).error {
            throw CRUDError.validation(message: problem.message, response: response)
        }
    }
}

@Suite struct InterceptorTests {
    @Test func stepsRunInOrderOnEveryAttempt() async throws {
        let trace = Locked<[String]>([])
        let transport = StubTransport().on(nil, "**") { request in
            trace.withLock {
                $0.append("send \(request.request.headers.values(for: "X-Trace").joined(separator: ","))")
            }
            return request.recorded.index == 0 ? .json(text: "{}", status: 503) : .json(text: "{}")
        }
        let policy = RetryPolicy(maxAttempts: 2, jitter: 0)
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: transport,
                interceptors: [Tracing(name: "a", trace: trace), Tracing(name: "b", trace: trace)],
                retryPolicy: policy, clock: ManualClock()))
        _ = try await api.get("people")
        #expect(
            trace.withLock { $0 } == [
                "adapt a", "adapt b", "send a,b", "validate a", "validate b",
                "decide a", "retry a", "decide b", "retry b",
                "adapt a", "adapt b", "send a,b", "validate a", "validate b",
            ])
    }

    @Test func adaptersReadValuesAtSendTime() async throws {
        let token = Locked("first")
        let transport = StubTransport().on(nil, "**", .json(text: "{}"))
        let api = API(
            baseURL: testBase, transport: transport,
            interceptors: [
                .adapt { request in
                    var request = request
                    request.headers["Authorization"] = "Bearer " + token.withLock { $0 }
                    return request
                }
            ])
        _ = try await api.get("me")
        token.withLock { $0 = "second" }
        _ = try await api.get("me")
        #expect(transport.recorder.requests.map { $0.header("Authorization") } == ["Bearer first", "Bearer second"])
    }

    @Test func aValidatorTurnsAnErrorBodyIntoAFailure() async {
        let body = #"{"error": {"type": "DataException", "message": "no data", "code": 800}}"#
        let api = API(
            baseURL: testBase, transport: StubTransport().on(nil, "**", .json(text: body)),
            interceptors: [ErrorBodyValidator()])
        let error = await crudError { try await api.get("track/313555658769") }
        guard case .validation(let message, let response) = error else { return #expect(Bool(false)) }
        #expect(message == "no data")
        #expect(response.status == 200)
    }

    @Test func closureValidatorsWrapTheirErrors() async {
        struct Refused: Error, CustomStringConvertible { var description: String { "refused" } }
        let api = API(
            baseURL: testBase, transport: StubTransport().on(nil, "**", .json(text: "{}")),
            interceptors: [.validate { _ in throw Refused() }])
        let error = await crudError { try await api.get("x") }
        guard case .validation(let message, _) = error else { return #expect(Bool(false)) }
        #expect(message == "refused")
    }

    @Test func aFailingAdapterStopsTheRequest() async {
        struct NoToken: Error {}
        let transport = StubTransport().on(nil, "**", .json(text: "{}"))
        let api = API(baseURL: testBase, transport: transport, interceptors: [.adapt { _ in throw NoToken() }])
        #expect((await crudError { try await api.get("x") })?.caseName == "invalidRequest")
        #expect(transport.recorder.count == 0)
    }

    @Test func decideStopEndsTheSessionWithoutRetrying() async {
        let sessionEnded = Locked(false)
        let transport = StubTransport().on(nil, "**", .json(text: "{}", status: 401))
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: transport,
                interceptors: [
                    .decide { error in
                        guard error.status == 401 else { return .proceed }
                        sessionEnded.withLock { $0 = true }
                        return .stop
                    },
                    .retry { _, _, _ in .retryNow },
                ],
                clock: ManualClock()))
        let error = await crudError { try await api.get("me") }
        #expect(error?.status == 401)
        #expect(sessionEnded.withLock { $0 })
        #expect(transport.recorder.count == 1)
    }

    @Test func retryInterceptorsComeFirstAndMayReplaceTheError() async {
        let transport = StubTransport().on(
            nil, "**", sequence: [.json(text: "{}", status: 500), .json(text: "{}", status: 500), .json(text: "{}")])
        let clock = ManualClock()
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: transport,
                interceptors: [
                    .retry { _, _, context in context.attempt < 3 ? .retry(after: .seconds(2)) : .doNotRetry }
                ],
                clock: clock))
        _ = try? await api.post("jobs")
        #expect(transport.recorder.count == 3)
        #expect(clock.sleeps == [.seconds(2), .seconds(2)])

        let replacing = API(
            baseURL: testBase, transport: StubTransport().on(nil, "**", .json(text: "{}", status: 500)),
            interceptors: [.retry { _, _, _ in .fail(.invalidRequest(reason: "maintenance")) }])
        #expect((await crudError { try await replacing.get("x") })?.caseName == "invalidRequest")
    }

    @Test func interceptorsCannotLoopForever() async {
        let transport = StubTransport().on(nil, "**", .json(text: "{}", status: 500))
        let api = API(
            baseURL: testBase, transport: transport, interceptors: [.retry { _, _, _ in .retryNow }])
        #expect((await crudError { try await api.get("x") })?.status == 500)
        #expect(transport.recorder.count == API.attemptLimit)
    }
}
