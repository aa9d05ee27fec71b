import CRUDKit
import CRUDKitObservability
import CRUDKitTesting
import Foundation
import Hummingbird
import InMemoryTracing
import Instrumentation
import Testing
import Tracing

/// A Hummingbird 2 app, traced by Hummingbird's own `TracingMiddleware`, whose route calls another loopback service
/// through CRUDKit: the trace goes on through the hop, by the bootstrapped tracer's W3C `traceparent`.
@Suite struct HummingbirdEndToEndTests {
    @Test func aRouteCallingAServiceThroughCRUDKitContinuesTheIncomingTrace() async throws {
        let tracer = W3CInMemoryTracer.bootstrapped
        let backend = try Backend()
        // What a user writes: nothing passed, the bootstrapped backends are used.
        let api = backend.api().with { $0.middleware.insertObservability() }
        let router = Router()
        router.add(middleware: TracingMiddleware())
        router.get("hop") { _, _ -> String in
            try await Person.using(api).read(id: 1234).name
        }
        let (ports, port) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                port.yield(channel.localAddress?.port ?? 0)
                port.finish()
            })
        let traceID = W3CInMemoryTracer.randomHex(bytes: 16)
        let callerSpanID = W3CInMemoryTracer.randomHex(bytes: 8)
        let answer = try await withThrowingTaskGroup(of: Data?.self) { group in
            group.addTask {
                try await app.runService(gracefulShutdownSignals: [])
                return nil
            }
            var listening = ports.makeAsyncIterator()
            let appPort = try #require(await listening.next())
            // The incoming request, as another service would send it: CRUDKit without observability, the caller's
            // traceparent set by hand.
            let caller = API(
                baseURL: URL(string: "http://127.0.0.1:\(appPort)")!, transport: URLSessionTransport())
            let body: Data = try await caller.get(
                "hop", headers: ["traceparent": "00-\(traceID)-\(callerSpanID)-01"])
            group.cancelAll()
            return body
        }
        #expect(String(decoding: answer, as: UTF8.self) == "Ada")
        let spans = tracer.base.finishedSpans.filter { $0.traceID == traceID }
        let server = try #require(spans.first { $0.kind == .server })
        let clientSpan = try #require(spans.first { $0.kind == .client })
        #expect(server.parentSpanID == callerSpanID)
        #expect(clientSpan.parentSpanID == server.spanID)
        #expect(clientSpan.operationName == "GET /v1/people/{id}")
        let outgoing = try #require(backend.server.requests.last?.headers["traceparent"])
        #expect(outgoing == "00-\(traceID)-\(clientSpan.spanID)-01")
    }
}

/// An in-memory tracer that propagates by W3C `traceparent`, as swift-otel does, so a test sees the real header.
struct W3CInMemoryTracer: Tracer {
    let base = InMemoryTracer(
        idGenerator: .init(nextTraceID: { randomHex(bytes: 16) }, nextSpanID: { randomHex(bytes: 8) }))

    /// The process's bootstrapped tracer (`InstrumentationSystem` takes one per process).
    static let bootstrapped: W3CInMemoryTracer = {
        let tracer = W3CInMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()

    static func randomHex(bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        base.startSpan(
            operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID,
            line: line)
    }

    func forceFlush() { base.forceFlush() }

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {
        guard let header = extractor.extract(key: "traceparent", from: carrier) else { return }
        let parts = header.split(separator: "-")
        guard parts.count == 4, parts[1].count == 32, parts[2].count == 16 else { return }
        context.inMemorySpanContext = InMemorySpanContext(
            traceID: String(parts[1]), spanID: String(parts[2]), parentSpanID: nil)
    }
}
