import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

@Suite struct InMemoryBackendFaultTests {
    let backend = makePeopleBackend()

    private func isConnectionLost(_ error: any Error) -> Bool {
        guard case .transport = error as? CRUDError else { return false }
        return true
    }

    @Test func failsTheNextRequestsWithAStatus() async throws {
        backend.failNext(2, status: 503, retryAfter: 1)

        let first = try await call(backend, .post, "/people", json: ["first_name": "A", "last_name": "B"])
        let second = try await call(backend, .get, "/people")
        let third = try await call(backend, .get, "/people")

        #expect(first.status == 503)
        #expect(first.headers["Retry-After"] == "1")
        #expect(second.status == 503)
        #expect(third.status == 200)
        #expect(backend.count(in: "people") == 0)
        #expect(backend.recorder.count == 3)
        #expect(backend.injectedFailures == ["status": 2])
    }

    @Test func dropsTheConnectionWithoutWriting() async throws {
        backend.failNext(with: .dropConnection)

        await #expect(throws: CRUDError.self) {
            _ = try await call(backend, .post, "/people", json: ["first_name": "A", "last_name": "B"])
        }
        #expect(backend.count(in: "people") == 0)
    }

    @Test func aLostAnswerStillWrites() async throws {
        backend.failNext(with: .loseAnswer)

        do {
            _ = try await call(backend, .post, "/people", json: ["first_name": "A", "last_name": "B"])
            Issue.record("expected a transport error")
        } catch {
            #expect(isConnectionLost(error))
        }
        #expect(backend.count(in: "people") == 1)
    }

    @Test func aRetryWithTheSameIdempotencyKeyAfterALostAnswerDoesNotDuplicate() async throws {
        backend.failNext(with: .loseAnswer)
        let headers: HTTPHeaders = ["Idempotency-Key": "abc"]
        let body: JSON = ["first_name": "A", "last_name": "B"]

        _ = try? await call(backend, .post, "/people", json: body, headers: headers)
        let retried = try await call(backend, .post, "/people", json: body, headers: headers)

        #expect(retried.status == 201)
        #expect(retried.json["id"] == 1)
        #expect(backend.count(in: "people") == 1)
    }

    /// The outcome of each of `count` creates against a backend failing randomly with `seed`.
    private static func outcomes(seed: UInt64, count: Int = 200) async -> [String] {
        let backend = makePeopleBackend()
        backend.failRandomly(rate: 0.3, seed: seed)
        var outcomes: [String] = []
        for number in 0..<count {
            do {
                let response = try await call(
                    backend, .post, "/people", json: ["first_name": .string("F\(number)"), "last_name": "L"])
                outcomes.append(String(response.status))
            } catch {
                outcomes.append("thrown")
            }
        }
        outcomes.append("stored \(backend.count(in: "people"))")
        return outcomes
    }

    @Test func randomFailuresAreReproducibleWithTheSameSeed() async throws {
        let one = await Self.outcomes(seed: 42)
        let two = await Self.outcomes(seed: 42)
        let other = await Self.outcomes(seed: 43)

        #expect(one == two)
        #expect(one != other)
        let failures = one.dropLast().filter { $0 != "201" }.count
        #expect((40...80).contains(failures))
        #expect(one.contains("503") && one.contains("thrown"))
    }

    @Test func randomFailuresIncludeLostAnswersThatWrote() async throws {
        backend.failRandomly(rate: 0.5, seed: 7, faults: [.loseAnswer])
        var thrown = 0
        for _ in 0..<50 {
            do {
                _ = try await call(backend, .post, "/people", json: ["first_name": "A", "last_name": "B"])
            } catch {
                thrown += 1
            }
        }
        #expect(thrown > 0)
        #expect(backend.injectedFailures["lost"] == thrown)
        #expect(backend.count(in: "people") == 50)
        backend.stopFailing()
        #expect(try await call(backend, .get, "/people").status == 200)
    }

    @Test func writeSafetyWithRetriesAndIdempotencyKeys() async throws {
        backend.failRandomly(rate: 0.3, seed: 2024)
        for number in 0..<1000 {
            let headers: HTTPHeaders = ["Idempotency-Key": "create-\(number)"]
            var attempts = 0
            while true {
                attempts += 1
                let response = try? await call(
                    backend, .post, "/people", json: ["first_name": .string("F\(number)"), "last_name": "L"],
                    headers: headers)
                if response?.status == 201 { break }
                try #require(attempts < 50)
            }
        }
        #expect(backend.count(in: "people") == 1000)
        let names = Set(backend.records(in: "people").map(\.["first_name"]))
        #expect(names.count == 1000)
        #expect((backend.injectedFailures["lost"] ?? 0) > 50)
    }

    @Test func latencyHookRunsBeforeEachRequestAndCanHoldIt() async throws {
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
        backend.setLatency { _ in
            enteredContinuation.yield()
            for await _ in release { break }
        }

        async let response = call(backend, .get, "/people")
        for await _ in entered { break }
        #expect(backend.recorder.count == 1)
        releaseContinuation.yield()

        #expect(try await response.status == 200)
    }

    @Test func latencyHookErrorsAndCancellationSurfaceAsCRUDErrors() async throws {
        backend.setLatency { _ in throw CancellationError() }
        do {
            _ = try await call(backend, .get, "/people")
            Issue.record("expected cancellation")
        } catch {
            #expect((error as? CRUDError)?.isCancelled == true)
        }
        backend.setLatency(nil)
        #expect(try await call(backend, .get, "/people").status == 200)
    }
}
