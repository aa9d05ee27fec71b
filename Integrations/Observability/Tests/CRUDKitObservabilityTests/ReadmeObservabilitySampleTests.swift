import CRUDKit
import CRUDKitObservability
import CRUDKitTesting
import CoreMetrics
import Foundation
import Instrumentation
import Logging
import MetricsTestKit
import Testing
import Tracing

/// README's "On Linux servers" observability sample, compiled here as written (between the `observability-sample`
/// markers) and run with in-memory backends instead of the process-wide bootstrap.
enum ReadmeObservabilitySample {
    /// The sample; `bootstrap` stands for the two `bootstrap` calls, which a process makes once.
    static func sample(
        base: URL, requestID: String, metricsFactory: any MetricsFactory, tracer: any Tracer,
        bootstrap: Bool = false, configure: (inout APIConfiguration) -> Void = { _ in }
    ) async throws -> Person {
        // BEGIN README
        let api = API(baseURL: base, middleware: .standard.inserting(RetryMiddleware(policy: .standard))).with {
            $0.middleware.insertObservability(logger: Logger(label: "people-client"))
        }
        // Logging: a line per attempt, redacted (sent .trace, 2xx .debug, 4xx .info, retry .notice, 5xx .warning,
        // transport errors .error); the task's metadata, such as a request id, is on every line.
        let ada = try await withLogger(mergingMetadata: ["request.id": "\(requestID)"]) { _ in
            try await Person.using(api.with(configure)).read(id: 12)
        }
        // Metrics (OpenTelemetry names): http.client.request.duration, http.client.active_requests,
        // http.client.response.body.size, crudkit.http.client.retries; labels method, server.address, server.port,
        // http.response.status_code, error.type, url.template ("/v1/people/{id}": never an id or a query).
        if bootstrap { MetricsSystem.bootstrap(metricsFactory) }
        // Tracing: a client span per logical request ("GET /v1/people/{id}"), an http.retry event per retry, and the
        // context injected into every attempt's headers (W3C traceparent with swift-otel), also from Future-based calls.
        if bootstrap { InstrumentationSystem.bootstrap(tracer) }
        // END README
        return ada
    }
}

@Suite struct ReadmeObservabilitySampleTests {
    @Test func theSampleRunsAndItsLinesAreTheREADMEs() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let ada = try await ReadmeObservabilitySample.sample(
            base: backend.server.baseURL.appendingPathComponent("v1"), requestID: "r-1",
            metricsFactory: recorders.metrics, tracer: recorders.tracer
        ) { configuration in
            configuration.middleware.insertObservability(
                logger: recorders.logger, metrics: recorders.metrics, tracer: recorders.tracer)
        }
        #expect(ada.name == "Ada")
        #expect(recorders.logs.entries.allSatisfy { $0.metadata["request.id"] == "r-1" })
        #expect(recorders.metrics.timers.count == 1)
        #expect(recorders.tracer.finishedSpans.map(\.operationName) == ["GET /v1/people/{id}"])

        // The README shows the same lines (the API line and the comments verbatim; the calls as a user writes them).
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../../../README.md").standardized, encoding: .utf8)
        let sampleStart = try #require(readme.range(of: "<!-- observability-sample -->"))
        let sampleEnd = try #require(readme.range(of: "<!-- /observability-sample -->"))
        let shown = readme[sampleStart.upperBound..<sampleEnd.lowerBound]
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let begin = try #require(source.range(of: "// BEGIN README\n"))
        let end = try #require(source.range(of: "        // END README"))
        let compiled = source[begin.upperBound..<end.lowerBound].split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
                .replacingOccurrences(of: "api.with(configure)", with: "api")
                .replacingOccurrences(of: "if bootstrap { ", with: "")
                .replacingOccurrences(of: ") }", with: ")")
        }
        let readmeLines = shown.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasPrefix("```") }
        #expect(compiled == readmeLines)
    }
}
