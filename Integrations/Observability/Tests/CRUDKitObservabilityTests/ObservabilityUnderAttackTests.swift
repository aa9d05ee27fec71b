import CRUDKit
import CRUDKitObservability
import CRUDKitTesting
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// Hostile inputs against the three stages over an in-process transport: secrets in every place a request or an
/// answer carries one, thousands of distinct ids and queries, a thousand requests at once, a cancellation in
/// flight, a retry storm.
@Suite struct ObservabilityUnderAttackTests {
    /// An error whose description holds a secret, as a transport's own error may (a URL with its query, say).
    struct SecretBearingError: Error, CustomStringConvertible {
        var description: String { "connection to https://u:\(Planted.password)@x.test/?token=\(Planted.token) failed" }
    }

    static let secretCookie = "sess-77c1d0e9a4"
    static let secretSig = "sig-5be0c3a9f1"
    static let secretHeaderKey = "hdr-9d2e61b7c0"
    static var secrets: [String] { Planted.all + [secretCookie, secretSig, secretHeaderKey] }

    @Test func secretsInHeadersQueriesBodiesAndErrorsReachNoRecord() async throws {
        let stubs = StubTransport()
            .on(.get, "people/:id", .json(["id": 1, "name": "Ada"]))
            .on(.get, "echo", .text("invalid token \(Planted.token) for key \(Self.secretHeaderKey)", status: 401))
            .on(
                .get, "broken",
                .failure(.transport(TransportFailure(.other, underlying: SecretBearingError()))))
        let recorders = Recorders()
        let base = URL(string: "https://ada:\(Planted.password)@api.example.com/v1")!
        let api = recorders.observing(
            API(
                baseURL: base, token: Planted.token, transport: stubs,
                middleware: .standard.inserting(RetryMiddleware(policy: retryAtOnce))))
        let headers: HTTPHeaders = ["Cookie": "session=\(Self.secretCookie)", "X-API-Key": Self.secretHeaderKey]
        let query = ["token": Planted.token, "sig": Self.secretSig, "api_key": Planted.apiKey]
        _ = try await api.get("people/7", query: query, headers: headers)
        await #expect(throws: CRUDError.self) { _ = try await api.get("echo", query: query, headers: headers) }
        await #expect(throws: CRUDError.self) { _ = try await api.get("broken", query: query, headers: headers) }
        // The secrets were sent.
        let sent = try #require(stubs.recorder.requests.first)
        #expect(sent.request.url.absoluteString.contains(Self.secretSig))
        #expect(sent.headers["X-API-Key"] == Self.secretHeaderKey)
        #expect(recorders.spanTexts.count == 3)
        #expect(recorders.spanTexts.contains { $0.contains("error:") })
        #expect(recorders.logLines.contains { $0.contains("crudkit.error") })
        for secret in Self.secrets {
            let leaks = recorders.everything.filter { $0.contains(secret) }
            #expect(leaks.isEmpty, "\(secret) leaked: \(leaks)")
        }
    }

    @Test func labelSetsStayBoundedAcrossDistinctIdsAndQueries() async throws {
        let stubs = StubTransport().on(.get, "people/:id", .json(["id": 1, "name": "Ada"]))
        let recorders = Recorders()
        let api = recorders.observing(API(baseURL: URL(string: "https://api.example.com/v1")!, transport: stubs))
        // 1,000 distinct requests: 500 ids through a model, 500 paths with distinct queries.
        for id in 0..<500 {
            _ = try await Person.using(api).read(id: id)
            _ = try await api.get("people/\(id)", query: ["q": "term-\(id)", "cursor": UUID().uuidString])
        }
        let labelSets = Set(recorders.metricLabels)
        #expect(labelSets.count <= 6, "\(labelSets.count) label sets: \(labelSets.prefix(8))")
        let spanNames = Set(recorders.tracer.finishedSpans.map(\.operationName))
        #expect(spanNames == ["GET /v1/people/{id}", "GET"])
    }

    @Test func aThousandConcurrentRequestsReturnTheInFlightGaugeToZeroAndEndEverySpan() async throws {
        let stubs = StubTransport()
            .on(.get, "people/:id", .json(["id": 1, "name": "Ada"]))
            .on(.get, "gone/:id", .status(404))
        let recorders = Recorders()
        let api = recorders.observing(API(baseURL: URL(string: "https://api.example.com/v1")!, transport: stubs))
        await withTaskGroup(of: Void.self) { group in
            for id in 0..<1_000 {
                group.addTask {
                    _ = try? await api.get(id.isMultiple(of: 3) ? "gone/\(id)" : "people/\(id)")
                }
            }
        }
        #expect(recorders.tracer.finishedSpans.count == 1_000)
        #expect(recorders.tracer.activeSpans.isEmpty)
        let meters = recorders.metrics.meters(label: SwiftMetricsMiddleware.activeRequestsLabel)
        #expect(!meters.isEmpty)
        #expect(meters.allSatisfy { $0.lastValue == 0 })
    }

    /// A transport that answers nothing until its request is cancelled, saying when a request arrived.
    struct HangingTransport: Transport {
        let arrived: AsyncStream<Void>.Continuation

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            arrived.yield()
            let (never, _) = AsyncStream<Void>.makeStream()
            for await _ in never {}
            throw CancellationError()
        }
    }

    @Test func aRequestCancelledInFlightEndsItsSpanOnceAndLeavesNothingInFlight() async throws {
        let (arrivals, arrived) = AsyncStream<Void>.makeStream()
        let recorders = Recorders()
        let api = recorders.observing(
            API(baseURL: URL(string: "https://api.example.com/v1")!, transport: HangingTransport(arrived: arrived)))
        let task = Task { try await api.post("people", body: .json(["name": "Ada"])) }
        var iterator = arrivals.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        await #expect(throws: CRUDError.self) { _ = try await task.value }
        #expect(recorders.tracer.finishedSpans.count == 1)
        #expect(recorders.tracer.activeSpans.isEmpty)
        #expect(recorders.tracer.finishedSpans.first?.attributes.get("error.type") == "cancelled")
        let meters = recorders.metrics.meters(label: SwiftMetricsMiddleware.activeRequestsLabel)
        #expect(meters.count == 1)
        #expect(meters.allSatisfy { $0.lastValue == 0 })
    }

    @Test func aRetryStormRecordsOneEventPerRetryAndNoMoreThanThePolicyAllows() async throws {
        let stubs = StubTransport().on(.get, "busy", .status(503))
        let recorders = Recorders()
        let policy = RetryPolicy(maxAttempts: 40, initialDelay: .zero, jitter: 0)
        let api = recorders.observing(
            API(
                baseURL: URL(string: "https://api.example.com/v1")!, transport: stubs,
                middleware: .standard.inserting(RetryMiddleware(policy: policy))))
        await #expect(throws: CRUDError.self) { _ = try await api.get("busy") }
        let spans = recorders.tracer.finishedSpans
        #expect(spans.count == 1)
        let attempts = stubs.recorder.requests.count
        #expect(attempts > 1 && attempts <= 40)
        #expect(spans.first?.events.count == attempts - 1)
        let retries = recorders.metrics.counters.filter { $0.label == SwiftMetricsMiddleware.retriesLabel }
        #expect(retries.reduce(0) { $0 + $1.totalValue } == Int64(attempts - 1))
        #expect(recorders.logLines.filter { $0.contains("retrying") }.count == attempts - 1)
    }
}
