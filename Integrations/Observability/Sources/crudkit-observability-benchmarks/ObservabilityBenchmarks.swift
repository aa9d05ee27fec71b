// The cost of logging, metrics and tracing on CRUDKit's in-process pipeline: `api.get` + decode over a
// StubTransport (no network), with `insertObservability()` and no-op backends, beside the same pipeline without it.
// The two run interleaved, in batches, the order flipped every round; each figure is the median of the rounds of
// the nanoseconds per request, and the row "added" is the median of the per-round differences.
//
//   swift run -c release crudkit-observability-benchmarks [--smoke]
//
// CRUDKIT_BENCH_ONLY=0|1|2 runs only that row (without, no-op backends, recording) for 20,000 requests (or
// CRUDKIT_BENCH_COUNT) and prints nothing: a steady workload for a profiler (`perf record -g`, or callgrind, whose
// instruction counts at two counts give the instructions per request without the process's start).
//
// No-op backends: the process bootstraps nothing (swift-log's default handler at `.info`, so the per-attempt
// lines at `.trace`/`.debug` are below its level; swift-metrics' NOOPMetricsHandler; swift-distributed-tracing's
// NoOpTracer). The row "recording" attaches backends that keep nothing but do the work a real one does per call (a
// logger at `.trace` into a handler that drops the line, a factory whose handlers drop the values, a tracer whose
// spans drop their attributes), as a ceiling for what the middleware itself costs with a real backend.
import CRUDKit
import CRUDKitObservability
import CRUDKitTesting
import CoreMetrics
import Foundation
import Instrumentation
import Logging
import Tracing

/// The answer every request decodes.
struct Person: Codable, Sendable {
    var id: Int
    var firstName: String
    var lastName: String
}

@main
enum ObservabilityBenchmarks {
    static func main() async throws {
        let smoke = CommandLine.arguments.contains("--smoke")
        let rounds = smoke ? 3 : 21
        let batch = smoke ? 50 : 5_000
        let stubs = StubTransport().on(
            .get, "people/:id", .json(["id": 1, "firstName": "Ada", "lastName": "Lovelace"]))
        let base = URL(string: "https://api.example.com/v1")!
        let plain = API(baseURL: base, transport: stubs)
        let observed = plain.with { $0.middleware.insertObservability() }
        let recording = plain.with {
            var logger = Logger(label: "bench") { _ in DroppingLogHandler() }
            logger.logLevel = .trace
            $0.middleware.insertObservability(
                logger: logger, metrics: DroppingMetrics(), tracer: DroppingTracer())
        }
        let rows: [(String, API)] = [("without", plain), ("no-op backends", observed), ("recording", recording)]
        if let only = ProcessInfo.processInfo.environment["CRUDKIT_BENCH_ONLY"].flatMap(Int.init) {
            let times = ProcessInfo.processInfo.environment["CRUDKIT_BENCH_COUNT"].flatMap(Int.init) ?? batch * 4
            try await run(rows[only].1, times: times)
            return
        }
        // Warm up every pipeline (first-use allocations, the stub's route table).
        for (_, api) in rows { try await run(api, times: batch / 10 + 1) }
        var figures = [[Double]](repeating: [], count: rows.count)
        var added = [Double]()
        for round in 0..<rounds {
            var order = Array(rows.indices)
            if round % 2 == 1 { order.reverse() }
            var this = [Double](repeating: 0, count: rows.count)
            for index in order {
                let start = ContinuousClock.now
                try await run(rows[index].1, times: batch)
                let elapsed = ContinuousClock.now - start
                this[index] =
                    Double(elapsed.components.seconds) * 1e9
                    + Double(elapsed.components.attoseconds) / 1e9
                this[index] /= Double(batch)
            }
            for index in rows.indices { figures[index].append(this[index]) }
            added.append(this[1] - this[0])
        }
        print("CRUDKit observability cost: api.get + decode over StubTransport, \(rounds) rounds of \(batch)")
        for (index, row) in rows.enumerated() {
            let sorted = figures[index].sorted()
            print(
                "  \(row.0.padding(toLength: 16, withPad: " ", startingAt: 0)) "
                    + "median \(format(median(sorted))) ns/request  (range \(format(sorted[0]))–"
                    + "\(format(sorted[sorted.count - 1])))")
        }
        print("  added by insertObservability() with no-op backends: median \(format(median(added.sorted()))) ns")
        let recordingAdded = zip(figures[2], figures[0]).map { $0 - $1 }.sorted()
        print("  added with recording backends: median \(format(median(recordingAdded))) ns")
    }

    static func run(_ api: API, times: Int) async throws {
        for _ in 0..<times {
            let person: Person = try await api.get("people/1")
            precondition(person.id == 1)
        }
    }

    static func median(_ sorted: [Double]) -> Double { sorted[sorted.count / 2] }

    static func format(_ value: Double) -> String { String(format: "%.0f", value) }
}

/// A log handler that drops every line after it is built.
struct DroppingLogHandler: Logging.LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: Logging.LogEvent) {}
}

/// A metrics factory whose handlers drop every value.
final class DroppingMetrics: MetricsFactory, CounterHandler, MeterHandler, RecorderHandler, TimerHandler,
    FloatingPointCounterHandler
{
    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { self }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        self
    }
    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler { self }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { self }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { self }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyMeter(_ handler: any MeterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
    func increment(by: Int64) {}
    func increment(by: Double) {}
    func decrement(by: Double) {}
    func set(_ value: Int64) {}
    func set(_ value: Double) {}
    func record(_ value: Int64) {}
    func record(_ value: Double) {}
    func recordNanoseconds(_ duration: Int64) {}
    func reset() {}
}

/// A tracer whose spans drop what they are given; it injects a `traceparent`-sized header.
struct DroppingTracer: Tracer {
    final class Span: Tracing.Span {
        var context: ServiceContext { .topLevel }
        var operationName: String {
            get { "" }
            set {}
        }
        var attributes: SpanAttributes {
            get { [:] }
            set {}
        }
        var isRecording: Bool { true }
        func setStatus(_ status: SpanStatus) {}
        func addEvent(_ event: SpanEvent) {}
        func recordError<Instant: TracerInstant>(
            _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
        ) {}
        func addLink(_ link: SpanLink) {}
        func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {}
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> Span { Span() }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        injector.inject(
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {}
}
