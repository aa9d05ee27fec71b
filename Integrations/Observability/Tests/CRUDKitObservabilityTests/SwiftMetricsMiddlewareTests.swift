import CRUDKit
import CRUDKitObservability
import CRUDKitTesting
import CoreMetrics
import Foundation
import MetricsTestKit
import Testing

/// `SwiftMetricsMiddleware` through a real transport: OpenTelemetry's HTTP client metrics, one duration per logical
/// request, the retries counted, labels without ids or queries.
@Suite struct SwiftMetricsMiddlewareTests {
    /// The labels every metric of a request to `backend` carries.
    private static func server(_ backend: Backend) -> [(String, String)] {
        [("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "\(backend.server.port)")]
    }

    @Test func aReadRecordsItsDurationSizeAndInFlightCount() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        _ = try await Person.using(api).read(id: 1234)
        let route = Self.server(backend) + [("url.template", "/v1/people/{id}")]
        let answered = route + [("http.response.status_code", "200")]
        let timer = try recorders.metrics.expectTimer("http.client.request.duration", answered)
        #expect(timer.values.count == 1)
        #expect(timer.values[0] > 0)
        let size = try recorders.metrics.expectRecorder("http.client.response.body.size", answered)
        #expect(size.values == [27])
        let active = try recorders.metrics.expectMeter("http.client.active_requests", route)
        #expect(active.values == [1, 0])
        #expect(recorders.metrics.counters.isEmpty)
    }

    @Test func a503ThenA200IsOneRequestAndOneRetry() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api(retryPolicy: retryAtOnce))
        let _: Person = try await api.get("flaky/1234")
        #expect(backend.flakyCalls.increment() == 3)
        let retries = try recorders.metrics.expectCounter(
            "crudkit.http.client.retries", Self.server(backend) + [("error.type", "503")])
        #expect(retries.totalValue == 1)
        let timers = recorders.metrics.timers(label: "http.client.request.duration")
        #expect(timers.count == 1)
        #expect(timers.first?.values.count == 1)
        #expect(timers.first?.dimensions.contains { $0 == ("http.response.status_code", "200") } == true)
    }

    @Test func failuresCarryErrorType() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        await #expect(throws: CRUDError.self) { let _: Person = try await api.get("missing") }
        await #expect(throws: CRUDError.self) { let _: Person = try await api.get("reset") }
        _ = try recorders.metrics.expectTimer(
            "http.client.request.duration",
            Self.server(backend) + [("http.response.status_code", "404"), ("error.type", "404")])
        _ = try recorders.metrics.expectTimer(
            "http.client.request.duration", Self.server(backend) + [("error.type", "connection_lost")])
    }

    @Test func aPlainPathWithAnIdAndAQueryMakesNoLabelOfThem() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        let _: Person = try await api.get("people/98765", query: ["q": "zebra"])
        let labels = recorders.metricLabels
        #expect(labels.count == 3)
        #expect(!labels.contains { $0.contains("98765") || $0.contains("zebra") || $0.contains("url.template") })
    }

    @Test func anUnknownMethodIsOther() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(backend.api())
        _ = try await api.send(Request<Data>(HTTPMethod(rawValue: "PURGE-x1"), "people/1"))
        #expect(recorders.metrics.timers.first?.dimensions.contains { $0 == ("http.request.method", "_OTHER") } == true)
    }
}
