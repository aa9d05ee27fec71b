import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// Writes under faults: against an ``InMemoryBackend`` failing a seeded 30% of requests (503s, connections dropped
/// before the server reads the request, and answers lost after the record was stored), 1,000 creates with retries
/// and `Idempotency-Key` on end with exactly 1,000 records: none lost, none duplicated.
@Suite struct WriteSafetyTests {
    struct Ledger: CRUDModel, Codable, Hashable {
        static let path = "ledgers"
        var id: Int?
        var title: String
    }

    static let creates = 1_000
    static let seed: UInt64 = 0x5EED_2026

    /// An API over `backend` that retries at once (no real waiting), up to 20 attempts.
    private static func makeAPI(
        _ backend: InMemoryBackend, keys: Bool,
        decide: (@Sendable (HTTPRequest, CRUDError, MiddlewareContext) async -> RetryDecision)? = nil
    ) -> API {
        API(
            configuration: APIConfiguration(
                baseURL: URL(string: "https://api.example.com/v1"),
                transport: backend,
                clock: ManualClock(),
                middleware: (keys ? [IdempotencyKeyMiddleware()] as [any Middleware] : []) + [
                    RetryMiddleware(
                        policy: RetryPolicy(
                            maxAttempts: 20, initialDelay: .zero, jitter: 0, maxTotalTime: nil, decide: decide)),
                    ValidationMiddleware(), CoalescingMiddleware(),
                ]
            ))
    }

    private static func makeBackend() -> InMemoryBackend {
        let backend = InMemoryBackend()
        backend.register("ledgers")
        backend.failRandomly(rate: 0.3, seed: seed)
        return backend
    }

    /// The titles stored, each with how many records carry it.
    private static func storedTitles(_ backend: InMemoryBackend) -> [String: Int] {
        backend.records(in: "ledgers").reduce(into: [:]) { counts, record in
            counts[(record["title"].string ?? ""), default: 0] += 1
        }
    }

    @Test func thousandCreatesWithRetriesAndIdempotencyKeysEndWithExactlyThousandRecords() async throws {
        let backend = Self.makeBackend()
        let ledgers = Ledger.using(Self.makeAPI(backend, keys: true))
        var created: [Ledger] = []

        for index in 0..<Self.creates {
            created.append(try await ledgers.create(Ledger(title: "entry \(index)")))
        }

        let injected = backend.injectedFailures
        let titles = Self.storedTitles(backend)
        let keys = backend.recorder.requests.compactMap { $0.header("Idempotency-Key") }
        print(
            "RELIABILITY writes: creates=\(Self.creates) records=\(backend.count(in: "ledgers"))",
            "attempts=\(backend.recorder.count) injected_503=\(injected["status", default: 0])",
            "injected_dropped=\(injected["drop", default: 0]) injected_lost_answers=\(injected["lost", default: 0])",
            "seed=\(Self.seed)"
        )
        #expect(backend.count(in: "ledgers") == Self.creates)
        #expect(titles == Dictionary(uniqueKeysWithValues: (0..<Self.creates).map { ("entry \($0)", 1) }))
        #expect(Set(created.compactMap(\.id)).count == Self.creates, "every create answered with its own record")
        #expect(created.map(\.title) == (0..<Self.creates).map { "entry \($0)" })
        #expect(injected["lost", default: 0] > 50, "answers were lost after the record was stored")
        #expect(injected["drop", default: 0] > 50 && injected["status", default: 0] > 50)
        #expect(keys.count == backend.recorder.count, "every attempt carried a key")
        #expect(Set(keys).count == Self.creates, "one key per create, the same on each of its attempts")
    }

    /// The same load with 16 creates in flight at once: which requests fail depends on scheduling, the invariant
    /// does not.
    @Test func concurrentCreatesKeepTheSameInvariant() async throws {
        let backend = Self.makeBackend()
        let ledgers = Ledger.using(Self.makeAPI(backend, keys: true))

        try await withThrowingTaskGroup(of: Void.self) { group in
            for batch in stride(from: 0, to: Self.creates, by: 16) {
                for index in batch..<min(batch + 16, Self.creates) {
                    group.addTask { _ = try await ledgers.create(Ledger(title: "entry \(index)")) }
                }
                try await group.waitForAll()
            }
        }

        #expect(backend.count(in: "ledgers") == Self.creates)
        #expect(Self.storedTitles(backend).values.allSatisfy { $0 == 1 })
    }

    /// The control that shows the test can fail: a client that retries POSTs without an `Idempotency-Key` creates
    /// a record again for every lost answer.
    @Test func retryingWithoutIdempotencyKeysDuplicatesRecords() async throws {
        let backend = Self.makeBackend()
        let retryEverything: @Sendable (HTTPRequest, CRUDError, MiddlewareContext) async -> RetryDecision = {
            _, _, context in context.attempt < 20 ? .retry(after: .zero) : .doNotRetry
        }
        let ledgers = Ledger.using(Self.makeAPI(backend, keys: false, decide: retryEverything))

        for index in 0..<200 {
            _ = try await ledgers.create(Ledger(title: "entry \(index)"))
        }

        let lost = backend.injectedFailures["lost", default: 0]
        #expect(lost > 0)
        #expect(backend.count(in: "ledgers") == 200 + lost, "one duplicate per lost answer")
    }
}
