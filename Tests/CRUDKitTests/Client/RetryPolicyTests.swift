import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

@Suite struct RetryPolicyTests {
    let clock = ManualClock()

    func api(_ transport: StubTransport, _ policy: RetryPolicy, keys: Bool = false) -> API {
        API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: transport, clock: clock,
                middleware: (keys ? [IdempotencyKeyMiddleware()] as [any Middleware] : []) + [
                    RetryMiddleware(policy: policy), ValidationMiddleware(), CoalescingMiddleware(),
                ]))
    }

    @Test func backsOffExponentiallyUpToTheAttemptCap() async {
        let transport = StubTransport().on(nil, "**", .json(text: "{}", status: 503))
        let policy = RetryPolicy(
            maxAttempts: 5, initialDelay: .milliseconds(100), multiplier: 2, maxDelay: .milliseconds(500), jitter: 0,
            maxTotalTime: nil)
        let error = await crudError { try await api(transport, policy).get("people") }
        #expect(error?.status == 503)
        #expect(transport.recorder.count == 5)
        #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(500)])
    }

    @Test func succeedsWhenALaterAttemptDoes() async throws {
        let transport = StubTransport().on(nil, "**") { request in
            if request.recorded.index == 0 { throw URLError(.networkConnectionLost) }
            if request.recorded.index == 1 { throw URLError(.timedOut) }
            return .json(text: #"{"firstName": "Ada", "lastName": "L"}"#)
        }
        let person: StubPerson = try await api(transport, RetryPolicy(maxAttempts: 3, jitter: 0)).get("people/1")
        #expect(person.firstName == "Ada")
        #expect(transport.recorder.count == 3)
        #expect(clock.sleeps == [.milliseconds(250), .milliseconds(500)])
    }

    @Test func jitterIsRepeatableWithASeed() {
        let request = HTTPRequest(method: .get, url: testBase)
        let error = CRUDError.httpStatus(HTTPResponse(status: 500))
        func delays(_ seed: UInt64) -> [Duration] {
            var policy = RetryPolicy(maxAttempts: 10, jitter: 0.5, maxTotalTime: nil)
            policy.random = .seeded(seed)
            return (1...5).compactMap {
                policy.decision(for: request, failedWith: error, attempt: $0, elapsed: .zero, now: Date()).delay
            }
        }
        let first = delays(42)
        #expect(first == delays(42))
        #expect(first != delays(43))
        for (index, delay) in first.enumerated() {
            let full = RetryPolicy(jitter: 0).backoff(afterAttempt: index + 1)
            #expect(delay <= full && delay >= full / 2)
        }
    }

    @Test func honoursRetryAfterSecondsAndDates() async {
        let date = "Tue, 14 Nov 2023 22:13:40 GMT"  // 20 s after the manual clock's start date
        let transport = StubTransport().on(
            nil, "**",
            sequence: [
                .json(text: "{}", status: 429, headers: ["Retry-After": "3"]),
                .json(text: "{}", status: 503, headers: ["Retry-After": date]),
                .json(text: "{}", status: 500, headers: ["Retry-After": "99"]),
            ])
        let policy = RetryPolicy(maxAttempts: 4, initialDelay: .milliseconds(100), jitter: 0, maxTotalTime: nil)
        _ = await crudError { try await api(transport, policy).get("people") }
        #expect(transport.recorder.count == 4)
        // 3 s asked, then the date 20 s after the start (3 s have passed: 17 s), then back-off (Retry-After only
        // counts on 429 and 503).
        #expect(clock.sleeps == [.seconds(3), .seconds(17), .milliseconds(400)])
    }

    @Test func parsesTheThreeHTTPDateForms() throws {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:47 GMT", now: now) == .seconds(10))
        #expect(RetryAfter.delay("Sunday, 06-Nov-94 08:49:47 GMT", now: now) == .seconds(10))
        #expect(RetryAfter.delay("Sun Nov  6 08:49:47 1994", now: now) == .seconds(10))
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == .zero)
        #expect(RetryAfter.delay(" 120 ", now: now) == .seconds(120))
        #expect(RetryAfter.delay("soon", now: now) == nil)
        #expect(RetryAfter.delay("-5", now: now) == nil)
    }

    @Test func aRetryAfterBeyondTheTotalTimeFailsAtOnce() async {
        let transport = StubTransport().on(
            nil, "**", .data(Data("{}".utf8), status: 503, headers: ["Retry-After": "120"]))
        let policy = RetryPolicy(maxAttempts: 5, maxTotalTime: .seconds(60))
        #expect((await crudError { try await api(transport, policy).get("people") })?.status == 503)
        #expect(transport.recorder.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func stopsWhenTheTotalTimeIsSpent() async {
        let clock = self.clock
        let transport = StubTransport().on(nil, "**") { _ in
            clock.advance(.seconds(4))  // each attempt takes 4 s
            return .json(text: "{}", status: 502)
        }
        let policy = RetryPolicy(
            maxAttempts: 100, initialDelay: .seconds(1), multiplier: 1, jitter: 0, maxTotalTime: .seconds(12))
        _ = await crudError { try await api(transport, policy).get("people") }
        // attempt 1 ends at 4 s, waits to 5; attempt 2 ends at 9, waits to 10; attempt 3 ends at 14: over.
        #expect(transport.recorder.count == 3)
    }

    @Test func postsAreRetriedOnlyWithAnIdempotencyKeyWhichStaysTheSame() async {
        let failing = StubTransport().on(nil, "**", .json(text: "{}", status: 503))
        let policy = RetryPolicy(maxAttempts: 3, jitter: 0)
        _ = await crudError { try await api(failing, policy).post("people") }
        #expect(failing.recorder.count == 1)
        _ = await crudError { try await api(failing, policy).patch("people/1") }
        #expect(failing.recorder.count == 2)

        let keyed = StubTransport().on(nil, "**", .json(text: "{}", status: 503))
        _ = await crudError { try await api(keyed, policy, keys: true).post("people") }
        #expect(keyed.recorder.count == 3)
        let keys = Set(keyed.recorder.requests.compactMap { $0.header("Idempotency-Key") })
        #expect(keys.count == 1)

        let manual = StubTransport().on(nil, "**", .json(text: "{}", status: 503))
        _ = await crudError { try await api(manual, policy).post("payments", headers: ["Idempotency-Key": "pay-1"]) }
        #expect(manual.recorder.count == 3)
    }

    @Test func whatIsRetriedIsConfigurable() async {
        let transport = StubTransport().on(nil, "**") { _ in throw URLError(.notConnectedToInternet) }
        let noTransport = RetryPolicy(maxAttempts: 3, retriesTransportErrors: false)
        _ = await crudError { try await api(transport, noTransport).get("x") }
        #expect(transport.recorder.count == 1)

        let status = StubTransport().on(nil, "**", .json(text: "{}", status: 500))
        _ = await crudError { try await api(status, RetryPolicy(maxAttempts: 3, retryableStatuses: [503])).get("x") }
        #expect(status.recorder.count == 1)

        let notFound = StubTransport().on(nil, "**", .json(text: "{}", status: 404))
        _ = await crudError { try await api(notFound, .standard).get("x") }
        #expect(notFound.recorder.count == 1)

        let perRequest = StubTransport().on(nil, "**", .json(text: "{}", status: 500))
        var request = Request(.get, "x", decoder: .okay)
        request.retryPolicy = RetryPolicy(maxAttempts: 2, jitter: 0)
        _ = await crudError { try await api(perRequest, .none).send(request) }
        #expect(perRequest.recorder.count == 2)
    }

    @Test func waitingIsCancellable() async {
        let clock = BlockingClock()
        let transport = StubTransport().on(nil, "**", .json(text: "{}", status: 503))
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: transport, clock: clock,
                middleware: [
                    RetryMiddleware(policy: RetryPolicy(maxAttempts: 5)), ValidationMiddleware(),
                    CoalescingMiddleware(),
                ]))
        let task = Task { try await api.get("people") }
        for await _ in clock.started { break }
        task.cancel()
        #expect((await crudError { try await task.value })?.caseName == "cancelled")
        #expect(transport.recorder.count == 1)
    }
}
