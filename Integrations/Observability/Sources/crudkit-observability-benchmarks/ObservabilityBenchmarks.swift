// The cost of logging, metrics and tracing on CRUDKit's in-process pipeline: `api.get` + decode over a
// StubTransport (no network), with `insertObservability()` and no-op backends, beside the same pipeline without it.
//
//   swift run -c release crudkit-observability-benchmarks [--smoke] [--rounds N] [--chain]
//
// The rows run interleaved, in batches of 5,000 requests, the order rotated every round. Each batch is timed twice:
// the process's CPU time (`CLOCK_PROCESS_CPUTIME_ID`, all threads: time the machine's other load takes from us is
// not counted) and wall-clock time. A row's figure is the median over the rounds of its nanoseconds per request,
// with the quartiles; "added" is the median (and quartiles) of the per-round differences from "without" — the pair
// of batches of one round ran next to each other under the same load. The row "without (again)" is the same
// pipeline as "without": its "added" is what the method reads when nothing was added (the noise floor).
//
// A second pipeline, `api.send` over a transport with one fixed answer and no decoding, is the chain alone: its
// requests cost a fraction of the first's, and so does the run-to-run noise, while what the stages add is the same.
// `--chain` runs only this one.
//
// CRUDKIT_BENCH_ONLY=N runs only row N of the first pipeline (0 without, 1 no-op backends, 2 recording, 3 without again, 4 no-op with the
// logger off) for 20,000 requests (or CRUDKIT_BENCH_COUNT) and prints nothing: a steady workload for a profiler.
//
// No-op backends: the process bootstraps nothing (swift-log's default handler at `.info`, so the per-attempt
// lines at `.trace`/`.debug` are below its level; swift-metrics' NOOPMetricsHandler; swift-distributed-tracing's
// NoOpTracer). "no-op, logger off" gives the stages a logger at `.critical`, above every line's level, so the logging
// stage passes through too: the difference from "no-op backends" is what the logging stage costs at `.info`. The
// row "recording" attaches backends that keep nothing but do the work a real one does per call (a logger at `.trace`
// into a handler that drops the line, a factory whose handlers drop the values, a tracer whose spans drop their
// attributes), as a ceiling for what the middleware itself costs with a real backend.
import CRUDKit
import CRUDKitObservability
import CRUDKitTesting
import CoreMetrics
import Foundation
import Instrumentation
import Logging
import Tracing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The answer every request decodes.
struct Person: Codable, Sendable {
    var id: Int
    var firstName: String
    var lastName: String
}

@main
enum ObservabilityBenchmarks {
    static func main() async throws {
        let arguments = CommandLine.arguments
        let smoke = arguments.contains("--smoke")
        let roundsArgument = arguments.firstIndex(of: "--rounds").flatMap {
            $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil
        }
        let rounds = max(1, roundsArgument ?? (smoke ? 3 : 31))
        let batch = smoke ? 50 : 5_000
        let base = URL(string: "https://api.example.com/v1")!
        let stubs = StubTransport().on(
            .get, "people/:id", .json(["id": 1, "firstName": "Ada", "lastName": "Lovelace"]))
        let decoding = Pipeline(
            title: "api.get + decode over StubTransport", batch: batch, api: API(baseURL: base, transport: stubs)
        ) { api in
            let person: Person = try await api.get("people/1")
            precondition(person.id == 1)
        }
        let request = HTTPRequest(url: base.appendingPathComponent("people/1"))
        let chainOnly = Pipeline(
            title: "api.send over a transport with one fixed answer (the chain alone)", batch: batch * 4,
            api: API(baseURL: base, transport: FixedAnswer())
        ) { api in
            let response = try await api.send(request)
            precondition(response.status == 200)
        }
        let environment = ProcessInfo.processInfo.environment
        if let only = environment["CRUDKIT_BENCH_ONLY"].flatMap(Int.init) {
            let times = environment["CRUDKIT_BENCH_COUNT"].flatMap(Int.init) ?? batch * 4
            return try await decoding.run(only, times: times)
        }
        let pipelines = arguments.contains("--chain") ? [chainOnly] : [decoding, chainOnly]
        for pipeline in pipelines { try await pipeline.measure(rounds: rounds) }
    }
}

/// One pipeline, the rows of which are its API with and without the stages.
struct Pipeline {
    let title: String
    let batch: Int
    let rows: [(String, API)]
    let request: @Sendable (API) async throws -> Void

    init(title: String, batch: Int, api plain: API, request: @escaping @Sendable (API) async throws -> Void) {
        self.title = title
        self.batch = batch
        self.request = request
        let again = API(configuration: plain.configuration)
        let observed = plain.with { $0.middleware.insertObservability() }
        let loggerOff = plain.with {
            var logger = Logger(label: "bench") { _ in DroppingLogHandler() }
            logger.logLevel = .critical
            $0.middleware.insertObservability(logger: logger)
        }
        let recording = plain.with {
            var logger = Logger(label: "bench") { _ in DroppingLogHandler() }
            logger.logLevel = .trace
            $0.middleware.insertObservability(
                logger: logger, metrics: DroppingMetrics(), tracer: DroppingTracer())
        }
        rows = [
            ("without", plain), ("no-op backends", observed), ("recording", recording), ("without (again)", again),
            ("no-op, logger off", loggerOff),
        ]
    }

    func run(_ row: Int, times: Int) async throws {
        let api = rows[row].1
        for _ in 0..<times { try await request(api) }
    }

    func measure(rounds: Int) async throws {
        // Warm up every pipeline (first-use allocations, the stub's route table).
        for index in rows.indices { try await run(index, times: batch / 10 + 1) }
        var cpu = [[Double]](repeating: [], count: rows.count)
        var wall = [[Double]](repeating: [], count: rows.count)
        for round in 0..<rounds {
            // Rotated every round, reversed every other: no row always runs first or after the same one.
            let shift = round % rows.count
            var order: [Int] = (0..<rows.count).map { ($0 + shift) % rows.count }
            if round % 2 == 1 { order.reverse() }
            for index in order {
                let (startCPU, startWall) = (cpuNanoseconds(), ContinuousClock.now)
                try await run(index, times: batch)
                let elapsed = ContinuousClock.now - startWall
                let wallNanoseconds =
                    Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
                cpu[index].append(Double(cpuNanoseconds() - startCPU) / Double(batch))
                wall[index].append(wallNanoseconds / Double(batch))
            }
        }
        print("CRUDKit observability cost: \(title), \(rounds) rounds of \(batch)")
        print("  ns/request, median [quartiles] over the rounds; CPU time of the process, then wall clock")
        for (index, row) in rows.enumerated() {
            print("  \(pad(row.0)) CPU \(summary(cpu[index]))   wall \(summary(wall[index]))")
        }
        print("  added per request, median [quartiles] of the per-round differences from \"without\":")
        for index in [3, 1, 4, 2] {
            let addedCPU = zip(cpu[index], cpu[0]).map { $0 - $1 }
            let addedWall = zip(wall[index], wall[0]).map { $0 - $1 }
            print("  \(pad(rows[index].0)) CPU \(summary(addedCPU))   wall \(summary(addedWall))")
        }
    }

    /// The CPU time the process has used, all threads, in nanoseconds.
    func cpuNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Median and quartiles of `values`, e.g. `22610 [22410–22890]`.
    func summary(_ values: [Double]) -> String {
        let sorted = values.sorted()
        func at(_ fraction: Double) -> Double {
            sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
        }
        return "\(format(at(0.5))) [\(format(at(0.25)))–\(format(at(0.75)))]"
    }

    func pad(_ name: String) -> String { name.padding(toLength: 18, withPad: " ", startingAt: 0) }

    func format(_ value: Double) -> String { String(format: "%.0f", value) }
}

/// A transport answering every request with the same 200 and a small body, at once.
struct FixedAnswer: Transport {
    let answer = HTTPResponse(
        status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"id":1}"#.utf8))

    func send(_ request: HTTPRequest) async throws -> HTTPResponse { answer }
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
