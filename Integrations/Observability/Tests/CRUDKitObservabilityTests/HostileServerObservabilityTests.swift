import CRUDKit
import CRUDKitObservability
import CRUDKitTesting
import CoreMetrics
import Foundation
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Testing
import Tracing

/// The three stages through `URLSessionTransport` against a loopback server that plants secrets in its answers,
/// sends status codes outside HTTP's range, redirects, resets, stalls and serves downloads: no secret reaches a record,
/// labels stay bounded, every span ends, the trace context is sent once per attempt.
@Suite struct HostileServerObservabilityTests {
    static let cookie = "sess-0b3e91d7c4"
    static let headerKey = "hdr-5a17e0c2d8"
    static let serverToken = "srv-tok-2c8f40e1"
    static let serverPassword = "srv-pw-93d1a0b6"
    static let locationToken = "loc-tok-7e21c9a3"
    static let locationSig = "loc-sig-40b8d5f2"
    static var secrets: [String] {
        Planted.all + [cookie, headerKey, serverToken, serverPassword, locationToken, locationSig]
    }

    /// A server that answers with secrets of its own: in a `Set-Cookie`, in a 401's and a 500's body, in a
    /// redirect's `Location`; `/v1/status/N` answers status N (`000` as raw bytes), `/v1/file` a 100,000-byte
    /// download, `/v1/flaky/N` 503 twice then 200.
    static func hostileServer() throws -> (LoopbackServer, AsyncStream<Void>) {
        let flaky = LockedCounter()
        let (arrivals, arrived) = AsyncStream<Void>.makeStream()
        let server = LoopbackServer(handler: { request in
            let ada = HTTPResponse(
                status: 200,
                headers: ["Content-Type": "application/json", "Set-Cookie": "sid=\(Self.cookie); HttpOnly"],
                body: Data(#"{"id": 1, "name": "Ada"}"#.utf8))
            let path = request.path
            if path.hasPrefix("/v1/status/") {
                let code = String(path.dropFirst("/v1/status/".count))
                guard code != "000" else {
                    return .fault(.raw(Data("HTTP/1.1 000 Zero\r\nContent-Length: 0\r\n\r\n".utf8)))
                }
                return .response(HTTPResponse(status: Int(code) ?? 999))
            }
            switch path {
            case "/v1/denied":
                let body = #"{"error": "invalid token \#(Planted.token)", "access_token": "\#(Self.serverToken)"}"#
                return .response(
                    HTTPResponse(
                        status: 401, headers: ["Content-Type": "application/json", "Set-Cookie": "sid=\(Self.cookie)"],
                        body: Data(body.utf8)))
            case "/v1/boom":
                return .response(
                    HTTPResponse(
                        status: 500, headers: ["Content-Type": "application/json"],
                        body: Data(#"{"password": "\#(Self.serverPassword)", "token": "\#(Self.serverToken)"}"#.utf8)))
            case "/v1/go":
                let location = "/v1/people/1?access_token=\(Self.locationToken)&sig=\(Self.locationSig)&page=2"
                return .response(HTTPResponse(status: 302, headers: ["Location": location]))
            case "/v1/reset":
                return .fault(.closeBeforeStatusLine)
            case "/v1/never":
                arrived.yield()
                return .fault(.neverAnswer)
            case "/v1/file":
                return .download(LoopbackDownload(length: 100_000))
            case "/v1/flaky/1":
                return flaky.increment() <= 2 ? .response(HTTPResponse(status: 503)) : .response(ada)
            default:
                return .response(ada)
            }
        })
        try server.start()
        return (server, arrivals)
    }

    /// The text of a string attribute; `nil` for none or another kind.
    static func text(_ attribute: SpanAttribute?) -> String? {
        guard case .string(let text) = attribute else { return nil }
        return text
    }

    /// The API on `server` under `/v1`, with a password in its URL, a bearer token, a secret query value, a cookie
    /// and an API key header on every request.
    static func api(_ server: LoopbackServer, retry: RetryPolicy = .none) -> API {
        var components = URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false)!
        components.path = "/v1"
        components.user = "ada"
        components.password = Planted.password
        return API(
            baseURL: components.url!, token: Planted.token,
            headers: ["Cookie": "session=\(Self.cookie)", "X-API-Key": Self.headerKey],
            query: ["api_key": Planted.apiKey], transport: URLSessionTransport(),
            middleware: .standard.inserting(RetryMiddleware(policy: retry)))
    }

    @Test func secretsTheServerSendsBackReachNoLogLineLabelOrSpan() async throws {
        let (server, _) = try Self.hostileServer()
        defer { server.stop() }
        let recorders = Recorders()
        let api = recorders.observing(Self.api(server, retry: retryAtOnce))
        _ = try await Person.using(api).read(id: 1)
        let _: Person = try await api.get("go", query: ["token": Planted.token])
        await #expect(throws: CRUDError.self) { let _: Person = try await api.get("denied") }
        await #expect(throws: CRUDError.self) {
            let _: Person = try await api.get("boom", query: ["password": Planted.password])
        }
        await #expect(throws: CRUDError.self) { let _: Person = try await api.get("reset") }
        // The secrets were in play: sent to the server, and sent back by it.
        let wire = server.requests.map { String(decoding: $0.raw, as: UTF8.self) }.joined()
        for secret in [Planted.token, Planted.apiKey, Self.cookie, Self.headerKey, Self.locationToken] {
            #expect(wire.contains(secret), "\(secret) was not sent")
        }
        #expect(recorders.spanTexts.count == 5)
        #expect(recorders.spanTexts.filter { $0.contains("error:") }.count == 3)
        #expect(recorders.logLines.contains { $0.contains("crudkit.redirect.url.full") })
        for secret in Self.secrets {
            let leaks = recorders.everything.filter { $0.contains(secret) }
            #expect(leaks.isEmpty, "\(secret) leaked: \(leaks)")
        }
    }

    @Test func statusCodesOutsideHTTPsRangeAndUnknownMethodsMakeNoSeriesOfTheirOwn() async throws {
        let (server, _) = try Self.hostileServer()
        defer { server.stop() }
        let recorders = Recorders()
        let api = recorders.observing(Self.api(server))
        for code in ["600", "777", "999", "000"] {
            _ = try? await api.send(Request<Data>(.get, "status/\(code)"))
        }
        for method in ["X-PWN", "PWN2", "PURGE"] {
            _ = try? await api.send(Request<Data>(HTTPMethod(rawValue: method), "people/1"))
        }
        let timers = recorders.metrics.timers(label: SwiftMetricsMiddleware.durationLabel)
        func values(_ key: String) -> Set<String> {
            Set(timers.flatMap { timer in timer.dimensions.filter { $0.0 == key }.map(\.1) })
        }
        #expect(
            values("http.response.status_code").isSubset(of: ["200", "_OTHER"]),
            "\(values("http.response.status_code"))")
        #expect(values("error.type").isDisjoint(with: ["600", "777", "999", "0"]), "\(values("error.type"))")
        #expect(values("http.request.method") == ["GET", "_OTHER"])
        // OpenTelemetry names the span of an unknown method `HTTP` and keeps the method sent beside `_OTHER`.
        let others = recorders.tracer.finishedSpans.filter { $0.attributes.get("http.request.method") == "_OTHER" }
        #expect(others.count == 3)
        #expect(others.allSatisfy { $0.operationName == "HTTP" })
        let originals = others.compactMap { Self.text($0.attributes.get("http.request.method_original")) }
        #expect(Set(originals) == ["X-PWN", "PWN2", "PURGE"])
    }

    /// 2,000 distinct URLs (ids through a model, ids and queries through plain paths, unknown methods) through an
    /// in-process transport: a handful of series and span names (10,000 make the same 11 series; 2,000 keep the test
    /// fast).
    @Test func twoThousandDistinctURLsMakeAHandfulOfSeriesAndSpanNames() async throws {
        let stubs = StubTransport().on(.get, "people/:id", .json(["id": 1, "name": "Ada"]))
        let recorders = Recorders()
        let api = recorders.observing(API(baseURL: URL(string: "https://api.example.com/v1")!, transport: stubs))
        for id in 0..<500 {
            _ = try await Person.using(api).read(id: id)
            _ = try await api.get("people/\(id)", query: ["q": "term-\(id)", "cursor": "c\(id)"])
            _ = try? await api.send(Request<Data>(HTTPMethod(rawValue: "X-\(id)"), "people/\(id)"))
            _ = try? await api.get("things/\(id)/parts/\(id)")
        }
        #expect(stubs.recorder.requests.count == 2_000)
        // Per metric: a model's route, a plain path, an unknown method, a 404 (the meter has no status).
        let labelSets = Set(recorders.metricLabels)
        #expect(labelSets.count <= 11, "\(labelSets.count) label sets: \(labelSets.sorted().prefix(12))")
        #expect(!labelSets.contains { $0.contains("term-") || $0.contains("things/") || $0.contains("X-1") })
        let spanNames = Set(recorders.tracer.finishedSpans.map(\.operationName))
        #expect(spanNames.count <= 3, "\(spanNames.sorted().prefix(5))")
        #expect(recorders.tracer.finishedSpans.count == 2_000)
    }

    /// One span per logical request whatever its end: success, 404, reset, idle timeout, cancellation, a retried
    /// 503, a download, two identical reads at once; none left open, no request left in flight.
    @Test func everyOutcomeEndsItsSpanAndLeavesNothingInFlight() async throws {
        let (server, arrivals) = try Self.hostileServer()
        defer { server.stop() }
        let recorders = Recorders()
        let api = recorders.observing(Self.api(server, retry: retryAtOnce))
        _ = try await Person.using(api).read(id: 1)
        await #expect(throws: CRUDError.self) { let _: Person = try await api.get("status/404") }
        await #expect(throws: CRUDError.self) { let _: Person = try await api.get("reset") }
        var arrived = arrivals.makeAsyncIterator()
        let cancelled = Task { let _: Person = try await api.get("never") }
        _ = await arrived.next()
        cancelled.cancel()
        await #expect(throws: CRUDError.self) { try await cancelled.value }
        let impatient = api.with { $0.timeout = 0.2 }
        await #expect(throws: CRUDError.self) { let _: Person = try await impatient.get("never") }
        let _: Person = try await api.get("flaky/1")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("obs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try await api.download("file", to: file)
        async let first: Person = api.get("people/7")
        async let second: Person = api.get("people/7")
        _ = try await (first, second)

        let spans = recorders.tracer.finishedSpans
        #expect(spans.count == 9)
        #expect(recorders.tracer.activeSpans.isEmpty)
        #expect(spans.allSatisfy { $0.errors.count <= 1 })
        let types = spans.compactMap { Self.text($0.attributes.get("error.type")) }
        #expect(Set(types) == ["404", "connection_lost", "timeout", "cancelled"], "\(types)")
        let meters = recorders.metrics.meters(label: SwiftMetricsMiddleware.activeRequestsLabel)
        #expect(!meters.isEmpty && meters.allSatisfy { $0.lastValue == 0 })
        let timers = recorders.metrics.timers(label: SwiftMetricsMiddleware.durationLabel)
        #expect(timers.reduce(0) { $0 + $1.values.count } == 9)
    }

    /// A download's body goes to a file, not into the response: its size is what the server declared and sent.
    @Test func aDownloadRecordsTheBytesItReceived() async throws {
        let (server, _) = try Self.hostileServer()
        defer { server.stop() }
        let recorders = Recorders()
        let api = recorders.observing(Self.api(server))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("obs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try await api.download("file", to: file)
        let written = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
        #expect(written == 100_000)
        let span = try #require(recorders.tracer.finishedSpans.first)
        #expect(span.attributes.get("http.response.body.size") == 100_000)
        let answered = try #require(
            recorders.logs.entries.first { $0.message.description == "CRUDKit response received" })
        #expect(answered.metadata["http.response.body.size"]?.description == "100000")
        let sizes = recorders.metrics.recorders(label: SwiftMetricsMiddleware.responseBodySizeLabel)
        #expect(sizes.flatMap(\.values) == [100_000])
    }

    /// Each attempt of a retried request carries the trace context once, the client span's, even when the caller
    /// sent a header of the same name in other letter case.
    @Test func eachAttemptCarriesTheContextOnceNeverDuplicated() async throws {
        let (server, _) = try Self.hostileServer()
        defer { server.stop() }
        let recorders = Recorders()
        let api = recorders.observing(Self.api(server, retry: retryAtOnce))
        try await recorders.tracer.withSpan("caller") { _ in
            let _: Person = try await api.send(
                Request(.get, "flaky/1", headers: ["IN-MEMORY-SPAN-ID": "forged", "In-Memory-Trace-Id": "forged"]))
        }
        let client = try #require(recorders.tracer.finishedSpans.first { $0.kind == .client })
        let attempts = server.requests.filter { $0.path == "/v1/flaky/1" }
        #expect(attempts.count == 3)
        for attempt in attempts {
            let lines = String(decoding: attempt.raw, as: UTF8.self).split(separator: "\r\n").map { $0.lowercased() }
            #expect(lines.filter { $0.hasPrefix("in-memory-span-id:") } == ["in-memory-span-id: \(client.spanID)"])
            #expect(lines.filter { $0.hasPrefix("in-memory-trace-id:") } == ["in-memory-trace-id: \(client.traceID)"])
        }
    }

    /// 1,000 requests at once, each in its own caller span with its own request id: every line carries its own
    /// request's id, every client span is the child of its own caller's span, nothing is left in flight.
    @Test func aThousandConcurrentCallersKeepTheirOwnMetadataAndParents() async throws {
        let stubs = StubTransport().on(.get, "people/:id", .json(["id": 1, "name": "Ada"]))
        let recorders = Recorders()
        let api = recorders.observing(API(baseURL: URL(string: "https://api.example.com/v1")!, transport: stubs))
        let tracer = recorders.tracer
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in 0..<1_000 {
                group.addTask {
                    try await withLogger(mergingMetadata: ["request.id": "\(id)"]) { _ in
                        try await tracer.withSpan("caller-\(id)") { _ in
                            _ = try await Person.using(api).read(id: id)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let entries = recorders.logs.entries
        #expect(entries.count == 2_000)
        for entry in entries {
            let id = entry.metadata["request.id"]?.description ?? "-"
            #expect(entry.metadata["url.full"]?.description.hasSuffix("/people/\(id)") == true)
        }
        let spans = tracer.finishedSpans
        let callers = Dictionary(
            uniqueKeysWithValues: spans.filter { $0.kind != .client }.map { ($0.operationName, $0.spanID) })
        let clients = spans.filter { $0.kind == .client }
        #expect(callers.count == 1_000 && clients.count == 1_000)
        for client in clients {
            let url = Self.text(client.attributes.get("url.full")) ?? "-"
            let id = url.split(separator: "/").last.map(String.init) ?? "-"
            #expect(client.parentSpanID == callers["caller-\(id)"])
        }
        #expect(tracer.activeSpans.isEmpty)
        let meters = recorders.metrics.meters(label: SwiftMetricsMiddleware.activeRequestsLabel)
        #expect(meters.allSatisfy { $0.lastValue == 0 })
    }
}
