import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// A header the request marks sensitive — a `TokenRefresher`'s header whose name does not name a secret
/// (`X-Api-Access`), or one a custom middleware marks — is hidden wherever the request is shown: log events and
/// `cURLDescription`, as it already was in `HTTPRequest`'s description and kept from other origins. Before, logs
/// and `curl` renderings hid only the headers the `Redaction` names.
@Suite struct SensitiveHeaderRedactionTests {
    private static let token = "access-s3cret-value"

    @Test func aTokenRefreshersHeaderIsHiddenInLogEvents() async throws {
        let events = Locked<[LogEvent]>([])
        let transport = StubTransport().on(nil, "**", .json(text: "{}"))
        let refresher = TokenRefresher(token: Self.token, headerName: "X-Api-Access", scheme: "") { _ in "new" }
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: transport,
                middleware: [
                    RetryMiddleware(), LoggingMiddleware({ event in events.withLock { $0.append(event) } }),
                    ValidationMiddleware(), CoalescingMiddleware(),
                ])
        ).with { $0.middleware.insert(refresher, after: .retry) }

        _ = try await api.get("people")

        #expect(transport.recorder.requests.first?.header("X-Api-Access") == Self.token)
        let sent = try #require(events.withLock { $0 }.first { if case .requestSent = $0.kind { true } else { false } })
        #expect(sent.headers["X-Api-Access"] == Redaction.placeholder)
        for event in events.withLock({ $0 }) {
            #expect(!"\(event)".contains(Self.token))
            #expect(!String(reflecting: event).contains(Self.token))
        }
    }

    @Test func aHeaderMarkedSensitiveIsHiddenInCURL() throws {
        var request = HTTPRequest(
            url: try #require(URL(string: "https://api.example.com/people")),
            headers: ["X-Api-Access": Self.token, "X-Trace": "kept"])
        request.sensitiveHeaderNames = ["x-api-access"]
        let line = request.cURLDescription()
        #expect(!line.contains(Self.token))
        #expect(line.contains("X-Api-Access: REDACTED"))
        #expect(line.contains("X-Trace: kept"))
        #expect(!request.cURLDescription(redacting: Redaction(headers: ["X-Trace"])).contains(Self.token))
    }
}
