import CRUDKit
import CRUDKitObservability
import CRUDKitTesting
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// `DistributedTracingMiddleware` through a real transport: one client span per logical request, named and
/// attributed after OpenTelemetry's conventions, a retry event per retry, the context injected into every attempt,
/// and the caller's context flowing into async and `Future` calls alike.
@Suite struct DistributedTracingMiddlewareTests {
    @Test func aReadIsAClientSpanUnderTheCallersSpan() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        let callerContext = try await recorders.tracer.withSpan("caller") { span in
            _ = try await Person.using(api).read(id: 1234)
            return span.context
        }
        let caller = try #require(callerContext.inMemorySpanContext)
        let span = try #require(recorders.tracer.finishedSpans.first { $0.kind == .client })
        #expect(span.operationName == "GET /v1/people/{id}")
        #expect(span.traceID == caller.traceID)
        #expect(span.parentSpanID == caller.spanID)
        let attributes = span.attributes
        #expect(attributes.get("http.request.method") == "GET")
        #expect(attributes.get("server.address") == "127.0.0.1")
        #expect(attributes.get("server.port") == .int64(Int64(backend.server.port)))
        #expect(attributes.get("url.full") == .string("\(backend.server.baseURL.absoluteString)/v1/people/1234"))
        #expect(attributes.get("url.template") == "/v1/people/{id}")
        #expect(attributes.get("http.response.status_code") == 200)
        #expect(attributes.get("http.response.body.size") == 27)
        #expect(attributes.get("error.type") == nil)
        #expect(span.status == nil)
        // The server got the client span's context (the in-memory tracer's own propagation headers).
        let sent = try #require(backend.server.requests.last)
        #expect(sent.headers["in-memory-trace-id"] == caller.traceID)
        #expect(sent.headers["in-memory-span-id"] == span.spanID)
    }

    @Test func a503ThenA200IsOneSpanWithARetryEvent() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api(retryPolicy: retryAtOnce))
        let _: Person = try await api.get("flaky/1234")
        let spans = recorders.tracer.finishedSpans
        #expect(spans.count == 1)
        let span = try #require(spans.first)
        #expect(span.operationName == "GET")
        #expect(span.attributes.get("http.response.status_code") == 200)
        #expect(span.attributes.get("http.request.resend_count") == 1)
        #expect(span.events.map(\.name) == ["http.retry"])
        #expect(span.events.first?.attributes.get("error.type") == "503")
        #expect(span.status == nil)
        // Both attempts carried the span's context.
        let attempts = backend.server.requests.filter { $0.target.hasPrefix("/v1/flaky") }
        #expect(attempts.count == 2)
        #expect(attempts.allSatisfy { $0.headers["in-memory-span-id"] == span.spanID })
    }

    @Test func failuresSetTheStatusAndRecordTheError() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        await #expect(throws: CRUDError.self) { let _: Person = try await api.get("missing") }
        await #expect(throws: CRUDError.self) { let _: Person = try await api.get("reset") }
        let spans = recorders.tracer.finishedSpans
        #expect(spans.map { $0.attributes.get("error.type") } == ["404", "connection_lost"])
        #expect(spans.map { $0.status?.code } == [.error, .error])
        #expect(spans[0].attributes.get("http.response.status_code") == 404)
        #expect(spans.map(\.errors.count) == [1, 1])
    }

    @Test func aCancelledRequestEndsItsSpanAsCancelled() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        let task = Task { let _: Person = try await api.get("never") }
        var arrivals = backend.arrived.makeAsyncIterator()
        _ = await arrivals.next()
        task.cancel()
        await #expect(throws: CRUDError.self) { try await task.value }
        let span = try #require(recorders.tracer.finishedSpans.first)
        #expect(span.attributes.get("error.type") == "cancelled")
        #expect(span.status?.code == .error)
    }

    @Test func aRedirectIsOneSpanWithTheFinalStatus() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        let _: Person = try await api.get("moved")
        let spans = recorders.tracer.finishedSpans
        #expect(spans.count == 1)
        #expect(spans.first?.attributes.get("http.response.status_code") == 200)
        #expect(spans.first?.attributes.get("url.full") == .string("\(backend.server.baseURL.absoluteString)/v1/moved"))
        // Both hops carried the context.
        #expect(backend.server.requests.count == 2)
        #expect(backend.server.requests.allSatisfy { $0.headers["in-memory-span-id"] == spans.first?.spanID })
    }

    @Test func theCallersContextFlowsIntoFutureCalls() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        let callerContext = try await recorders.tracer.withSpan("caller") { span in
            let future: Future<Person> = Person.using(api).read(id: 1234)
            _ = try await future.value
            return span.context
        }
        let caller = try #require(callerContext.inMemorySpanContext)
        let span = try #require(recorders.tracer.finishedSpans.first { $0.kind == .client })
        #expect(span.operationName == "GET /v1/people/{id}")
        #expect(span.traceID == caller.traceID)
        #expect(span.parentSpanID == caller.spanID)
        #expect(backend.server.requests.last?.headers["in-memory-trace-id"] == caller.traceID)
    }

    @Test func aFutureCallbackChainStartedInTheCallersTaskKeepsItsContext() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        let callerContext = try await recorders.tracer.withSpan("caller") { span in
            let chained = Person.using(api).read(id: 1234).flatMap { ada in
                Person.using(api).read(id: ada.id ?? 0)
            }
            _ = try await chained.value
            return span.context
        }
        let caller = try #require(callerContext.inMemorySpanContext)
        let clients = recorders.tracer.finishedSpans.filter { $0.kind == .client }
        #expect(clients.count == 2)
        #expect(clients.allSatisfy { $0.traceID == caller.traceID && $0.parentSpanID == caller.spanID })
    }

    /// An attempt stage placed by hand, with no request stage outside it, injects the context into the first attempt
    /// itself (only `insertObservability`'s, which has one, leaves that to the request stage).
    @Test func anAttemptStageAloneInjectsTheContextIntoTheFirstAttempt() async throws {
        let backend = try Backend()
        let tracer = InMemoryTracer()
        let api = backend.api().with { $0.middleware.append(DistributedTracingMiddleware(.attempt, tracer: tracer)) }
        let callerContext = try await tracer.withSpan("caller") { span in
            _ = try await Person.using(api).read(id: 1234)
            return span.context
        }
        let caller = try #require(callerContext.inMemorySpanContext)
        let sent = try #require(backend.server.requests.last)
        #expect(sent.headers["in-memory-trace-id"] == caller.traceID)
        #expect(sent.headers["in-memory-span-id"] == caller.spanID)
        #expect(tracer.finishedSpans.allSatisfy { $0.kind != .client })
    }
}
