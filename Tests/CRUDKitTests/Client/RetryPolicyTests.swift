import Foundation
import Testing

@testable import CRUDKit

@Suite struct RetryPolicyTests {
    let clock = ManualClock()

    func api(_ transport: StubTransport, _ policy: RetryPolicy, keys: Bool = false) -> API {
        API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: transport, retryPolicy: policy, addsIdempotencyKeys: keys, clock: clock))
    }

    @Test func backsOffExponentiallyUpToTheAttemptCap() async {
        let transport = StubTransport(status: 503, json: "{}")
        let policy = RetryPolicy(
            maxAttempts: 5, initialDelay: .milliseconds(100), multiplier: 2, maxDelay: .milliseconds(500), jitter: 0,
            maxTotalTime: nil)
        let error = await crudError { try await api(transport, policy).get("people") }
        #expect(error?.status == 503)
        #expect(transport.count == 5)
        #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(500)])
    }

    @Test func succeedsWhenALaterAttemptDoes() async throws {
        let transport = StubTransport { _, index in
            if index == 0 { throw URLError(.networkConnectionLost) }
            if index == 1 { throw URLError(.timedOut) }
            return jsonResponse(#"{"firstName": "Ada", "lastName": "L"}"#)
        }
        let person: StubPerson = try await api(transport, RetryPolicy(maxAttempts: 3, jitter: 0)).get("people/1")
        #expect(person.firstName == "Ada")
        #expect(transport.count == 3)
        #expect(clock.sleeps == [.milliseconds(250), .milliseconds(500)])
    }

    @Test func jitterIsRepeatableWithASeed() {
        let request = HTTPRequest(method: .get, url: testBase)
        let error = CRUDError.httpStatus(HTTPResponse(status: 500))
        func delays(_ seed: UInt64) -> [Duration] {
            let policy = RetryPolicy(maxAttempts: 10, jitter: 0.5, maxTotalTime: nil, random: .seeded(seed))
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
        let transport = StubTransport { _, index in
            switch index {
            case 0: jsonResponse("{}", status: 429, headers: ["Retry-After": "3"])
            case 1: jsonResponse("{}", status: 503, headers: ["Retry-After": date])
            default: jsonResponse("{}", status: 500, headers: ["Retry-After": "99"])
            }
        }
        let policy = RetryPolicy(maxAttempts: 4, initialDelay: .milliseconds(100), jitter: 0, maxTotalTime: nil)
        _ = await crudError { try await api(transport, policy).get("people") }
        #expect(transport.count == 4)
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
        let transport = StubTransport(status: 503, json: "{}", headers: ["Retry-After": "120"])
        let policy = RetryPolicy(maxAttempts: 5, maxTotalTime: .seconds(60))
        #expect((await crudError { try await api(transport, policy).get("people") })?.status == 503)
        #expect(transport.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func stopsWhenTheTotalTimeIsSpent() async {
        let transport = StubTransport { _, _ in
            self.clock.advance(.seconds(4))  // each attempt takes 4 s
            return jsonResponse("{}", status: 502)
        }
        let policy = RetryPolicy(
            maxAttempts: 100, initialDelay: .seconds(1), multiplier: 1, jitter: 0, maxTotalTime: .seconds(12))
        _ = await crudError { try await api(transport, policy).get("people") }
        // attempt 1 ends at 4 s, waits to 5; attempt 2 ends at 9, waits to 10; attempt 3 ends at 14: over.
        #expect(transport.count == 3)
    }

    @Test func postsAreRetriedOnlyWithAnIdempotencyKeyWhichStaysTheSame() async {
        let failing = StubTransport(status: 503, json: "{}")
        let policy = RetryPolicy(maxAttempts: 3, jitter: 0)
        _ = await crudError { try await api(failing, policy).post("people") }
        #expect(failing.count == 1)
        _ = await crudError { try await api(failing, policy).patch("people/1") }
        #expect(failing.count == 2)

        let keyed = StubTransport(status: 503, json: "{}")
        _ = await crudError { try await api(keyed, policy, keys: true).post("people") }
        #expect(keyed.count == 3)
        let keys = Set(keyed.requests.compactMap { $0.headers["Idempotency-Key"] })
        #expect(keys.count == 1)

        let manual = StubTransport(status: 503, json: "{}")
        _ = await crudError { try await api(manual, policy).post("payments", headers: ["Idempotency-Key": "pay-1"]) }
        #expect(manual.count == 3)
    }

    @Test func whatIsRetriedIsConfigurable() async {
        let transport = StubTransport { _, _ in throw URLError(.notConnectedToInternet) }
        let noTransport = RetryPolicy(maxAttempts: 3, retriesTransportErrors: false)
        _ = await crudError { try await api(transport, noTransport).get("x") }
        #expect(transport.count == 1)

        let status = StubTransport(status: 500, json: "{}")
        _ = await crudError { try await api(status, RetryPolicy(maxAttempts: 3, retryableStatuses: [503])).get("x") }
        #expect(status.count == 1)

        let notFound = StubTransport(status: 404, json: "{}")
        _ = await crudError { try await api(notFound, .standard).get("x") }
        #expect(notFound.count == 1)

        let perRequest = StubTransport(status: 500, json: "{}")
        var request = Request<Okay>(.get, "x")
        request.retryPolicy = RetryPolicy(maxAttempts: 2, jitter: 0)
        _ = await crudError { try await api(perRequest, .none).send(request) }
        #expect(perRequest.count == 2)
    }

    @Test func waitingIsCancellable() async {
        let clock = BlockingClock()
        let transport = StubTransport(status: 503, json: "{}")
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: transport, retryPolicy: RetryPolicy(maxAttempts: 5), clock: clock))
        let task = Task { try await api.get("people") }
        for await _ in clock.started { break }
        task.cancel()
        #expect((await crudError { try await task.value })?.caseName == "cancelled")
        #expect(transport.count == 1)
    }
}
