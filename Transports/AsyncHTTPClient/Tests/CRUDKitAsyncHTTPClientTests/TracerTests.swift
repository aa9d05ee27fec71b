import AsyncHTTPClient
import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import InMemoryTracing
import Testing
import Tracing

@testable import CRUDKitAsyncHTTPClient

/// The tracer of a client the transport owns: none when nothing was bootstrapped (swift-distributed-tracing's
/// `NoOpTracer` records nothing yet costs every request a span), the bootstrapped one otherwise; a client you own is
/// never changed, and its spans come through the transport.
@Suite(.timeLimit(.minutes(1))) struct TracerTests {
    @Test func aTracerThatRecordsNothingIsDropped() {
        #expect(AsyncHTTPClientTransport.tracer(keeping: NoOpTracer()) == nil)
        #expect(AsyncHTTPClientTransport.tracer(keeping: nil) == nil)
    }

    @Test func aTracerThatRecordsIsKept() {
        #expect(AsyncHTTPClientTransport.tracer(keeping: InMemoryTracer()) is InMemoryTracer)
    }

    /// This test process bootstraps no tracer, so AsyncHTTPClient's configuration starts with a `NoOpTracer`; the
    /// owned client must end up with none (before, it kept the `NoOpTracer` and paid for its spans).
    @Test func anOwnedClientGetsNoTracerWhenNoneWasBootstrapped() async throws {
        try #require(InstrumentationSystem.tracer is NoOpTracer)
        #expect(HTTPClient.Configuration().tracing.tracer is NoOpTracer)
        let transport = AsyncHTTPClientTransport()
        #expect(transport.client.tracer == nil)
        try await transport.shutdown()
    }

    /// A client you own keeps the tracer you gave it, and a request through the transport (the collected path of
    /// `api.get` and a streamed upload alike) ends as a span of it.
    @Test func aClientYouOwnKeepsItsTracerAndItsSpans() async throws {
        let server = LoopbackServer(synchronousHandler: { _ in
            .response(HTTPResponse(status: 200, body: Data("{}".utf8)))
        })
        try server.start()
        defer { server.stop() }
        let tracer = InMemoryTracer()
        var settings = HTTPClient.Configuration(redirectConfiguration: .disallow)
        settings.tracing.tracer = tracer
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
        let transport = AsyncHTTPClientTransport(client: client)
        let url = server.baseURL.appendingPathComponent("traced")
        _ = try await transport.send(HTTPRequest(url: url))
        _ = try await transport.send(
            HTTPRequest(method: .put, url: url, body: .data(Data(repeating: 0x61, count: 100_000))))
        #expect(transport.client.tracer is InMemoryTracer)
        #expect(tracer.finishedSpans.map(\.operationName) == ["GET", "PUT"])
        try await client.shutdown()
    }
}
