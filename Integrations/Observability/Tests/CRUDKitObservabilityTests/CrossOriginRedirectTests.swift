import CRUDKit
import CRUDKitObservability
import CRUDKitTesting
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// A request redirected from one loopback origin to another (two servers, two ports): the span describes the request
/// as addressed and the final answer, says where the redirect led, and no secret of the first origin (its
/// `Authorization`, cookie, API key header, password, `token`/`api_key` query values) nor one the redirect's
/// `Location` carries reaches a span attribute, a log line's metadata or a metric label.
@Suite struct CrossOriginRedirectTests {
    static let cookie = "sess-4be19c07d2"
    static let headerKey = "hdr-71f0a3c9e6"
    static let locationToken = "loc-tok-61c2e0b5"
    static let locationKey = "loc-key-0d93aa4f"
    static var secrets: [String] { Planted.all + [cookie, headerKey, locationToken, locationKey] }

    @Test func aRedirectToAnotherOriginIsOneSpanOfTheFinalAnswerWithNoSecret() async throws {
        let destination = LoopbackServer(handler: { _ in
            .response(
                HTTPResponse(
                    status: 200, headers: ["Content-Type": "application/json"],
                    body: Data(#"{"id": 1234, "name": "Ada"}"#.utf8)))
        })
        try destination.start()
        defer { destination.stop() }
        let location =
            "\(destination.baseURL.absoluteString)/v2/people/1234"
            + "?token=\(Self.locationToken)&api_key=\(Self.locationKey)&page=2"
        let origin = LoopbackServer(handler: { _ in
            .response(HTTPResponse(status: 302, headers: ["Location": location, "Set-Cookie": "s=\(Self.cookie)"]))
        })
        try origin.start()
        defer { origin.stop() }
        #expect(origin.port != destination.port)

        var base = URLComponents(url: origin.baseURL, resolvingAgainstBaseURL: false)!
        base.path = "/v1"
        base.user = "ada"
        base.password = Planted.password
        let recorders = Recorders()
        let api = recorders.observing(
            API(
                baseURL: base.url!, token: Planted.token,
                headers: ["Cookie": "session=\(Self.cookie)", "X-API-Key": Self.headerKey],
                query: ["api_key": Planted.apiKey], transport: URLSessionTransport(),
                middleware: .standard.inserting(RetryMiddleware(policy: retryAtOnce))))
        let callerContext = try await recorders.tracer.withSpan("caller") { span in
            let ada = try await MiddlewareContext.$urlTemplate.withValue("/v1/people/{id}") {
                let person: Person = try await api.get("people/1234", query: ["token": Planted.token, "q": "x"])
                return person
            }
            #expect(ada.name == "Ada")
            return span.context
        }

        // The first origin got the secrets; the transport kept the credentials from the second.
        let first = try #require(origin.requests.first)
        #expect(first.headers["Authorization"] == "Bearer \(Planted.token)")
        #expect(first.headers["Cookie"] == "session=\(Self.cookie)")
        #expect(first.target.contains(Planted.apiKey))
        let second = try #require(destination.requests.first)
        #expect(origin.requests.count == 1 && destination.requests.count == 1)
        #expect(second.headers["Authorization"] == nil)
        #expect(second.headers["Cookie"] == nil)
        #expect(second.headers["X-API-Key"] == nil)
        #expect(second.target.contains(Self.locationToken))

        // One client span: the request as addressed, the final answer, where the redirect led.
        let caller = try #require(callerContext.inMemorySpanContext)
        let clients = recorders.tracer.finishedSpans.filter { $0.kind == .client }
        #expect(clients.count == 1)
        let span = try #require(clients.first)
        #expect(span.operationName == "GET /v1/people/{id}")
        #expect(span.parentSpanID == caller.spanID)
        let attributes = span.attributes
        #expect(attributes.get("http.request.method") == "GET")
        #expect(attributes.get("url.template") == "/v1/people/{id}")
        #expect(attributes.get("server.address") == "127.0.0.1")
        #expect(attributes.get("server.port") == .int64(Int64(origin.port)))
        #expect(
            attributes.get("url.full")
                == .string("\(origin.baseURL.absoluteString)/v1/people/1234?api_key=REDACTED&q=x&token=REDACTED"))
        #expect(attributes.get("http.response.status_code") == 200)
        #expect(attributes.get("http.response.body.size") == 27)
        #expect(attributes.get("error.type") == nil)
        #expect(span.status == nil)
        #expect(attributes.get("crudkit.redirect.server.address") == "127.0.0.1")
        #expect(attributes.get("crudkit.redirect.server.port") == .int64(Int64(destination.port)))
        #expect(
            attributes.get("crudkit.redirect.url.full")
                == .string(
                    "\(destination.baseURL.absoluteString)/v2/people/1234?token=REDACTED&api_key=REDACTED&page=2"))
        // Both origins received the trace context: the second continues the trace.
        #expect(first.headers["in-memory-span-id"] == span.spanID)
        #expect(second.headers["in-memory-trace-id"] == caller.traceID)
        #expect(second.headers["in-memory-span-id"] == span.spanID)

        // The log line of the answer says where it came from, redacted.
        let answered = try #require(
            recorders.logs.entries.first { $0.message.description == "CRUDKit response received" })
        #expect(answered.metadata["http.response.status_code"]?.description == "200")
        #expect(
            answered.metadata["crudkit.redirect.url.full"]?.description
                == "\(destination.baseURL.absoluteString)/v2/people/1234?token=REDACTED&api_key=REDACTED&page=2")

        // No secret anywhere: span attributes, events and errors, log metadata, metric labels.
        #expect(!recorders.logLines.isEmpty && !recorders.metricLabels.isEmpty)
        for secret in Self.secrets {
            let leaks = recorders.everything.filter { $0.contains(secret) }
            #expect(leaks.isEmpty, "\(secret) leaked: \(leaks)")
        }
        // The metric labels name the origin addressed, never the redirect's path or query.
        #expect(recorders.metricLabels.allSatisfy { !$0.contains("/v2/") && !$0.contains("page=") })
    }
}
