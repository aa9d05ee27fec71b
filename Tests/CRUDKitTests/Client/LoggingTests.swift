import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

@Suite struct LoggingTests {
    @Test func eventsCarryMethodURLStatusSizesAndAttempt() async throws {
        let events = Locked<[LogEvent]>([])
        let transport = StubTransport().on(
            nil, "**",
            sequence: [
                .json(text: "{}", status: 503, headers: ["Retry-After": "1"]),
                .json(text: #"{"ok":true}"#, headers: ["Set-Cookie": "session=abc"]),
            ])
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, headers: ["Authorization": "Bearer secret-token", "Cookie": "id=42"],
                query: ["api_key": "k-123"], transport: transport,
                redaction: Redaction(headers: ["X-Signature"], queryParameters: ["API_KEY"]), clock: ManualClock(),
                middleware: [
                    RetryMiddleware(policy: RetryPolicy(maxAttempts: 2)),
                    LoggingMiddleware({ event in events.withLock { $0.append(event) } }), ValidationMiddleware(),
                    CoalescingMiddleware(),
                ]))
        _ = try await api.put("people/1", body: .data(Data("hello".utf8)), headers: ["X-Signature": "sig"])

        let logged = events.withLock { $0 }
        let kinds = logged.map { event -> String in
            switch event.kind {
            case .requestSent: "sent"
            case .responseReceived(let status): "received \(status)"
            case .failed(let error): "failed \(error.caseName)"
            case .retrying(let delay): "retrying after \(delay)"
            }
        }
        #expect(
            kinds == [
                "sent", "received 503", "failed httpStatus(503)", "retrying after 1.0 seconds", "sent", "received 200",
            ])
        #expect(logged.map(\.attempt) == [1, 1, 1, 1, 2, 2])
        #expect(logged.allSatisfy { $0.method == .put })
        #expect(logged.allSatisfy { $0.url == "https://api.example.com/v1/people/1?api_key=REDACTED" })
        #expect(logged[0].requestBodySize == 5)
        #expect(logged[5].responseBodySize == 11)
        #expect(logged[1].duration != nil)
        #expect(logged[0].headers["Authorization"] == "REDACTED")
        #expect(logged[0].headers["Cookie"] == "REDACTED")
        #expect(logged[0].headers["X-Signature"] == "REDACTED")
        #expect(logged[0].headers["Content-Type"] == nil)
        #expect(logged[5].headers["Set-Cookie"] == "REDACTED")
        let text = logged.map(\.description).joined(separator: "\n")
        for secret in ["secret-token", "id=42", "k-123", "sig", "session=abc"] {
            #expect(!text.contains(secret))
            #expect(!logged.map { "\($0.headers)" }.joined().contains(secret))
        }
        #expect(logged[0].description == "→ PUT https://api.example.com/v1/people/1?api_key=REDACTED (attempt 1)")
    }

    @Test func cURLRendersTheRequestAndHidesSecrets() {
        let request = HTTPRequest(
            method: .post,
            url: URL(string: "https://user:hunter2@api.example.com/v1/people?token=t0k&page=2")!,
            headers: [
                "Authorization": "Bearer abc", "Proxy-Authorization": "Basic xyz", "Cookie": "a=b",
                "Content-Type": "application/json", "X-Quote": "it's",
            ],
            body: .data(Data(#"{"name":"O'Brien"}"#.utf8)))
        let curl = request.cURLDescription(redacting: Redaction(queryParameters: ["token"]))
        #expect(
            curl == """
                curl -X POST 'https://user:REDACTED@api.example.com/v1/people?token=REDACTED&page=2' \\
                  -H 'Authorization: REDACTED' \\
                  -H 'Proxy-Authorization: REDACTED' \\
                  -H 'Cookie: REDACTED' \\
                  -H 'Content-Type: application/json' \\
                  -H 'X-Quote: it'\\''s' \\
                  --data-binary '{"name":"O'\\''Brien"}'
                """)
        // A quote that forms one Character with a following combining mark is still closed and reopened, so the
        // text cannot leave its shell quotes.
        let combining = HTTPRequest(method: .post, url: testBase, body: .data(Data("'\u{0301}; rm -rf ~".utf8)))
        #expect(combining.cURLDescription().hasSuffix("--data-binary ''\\''\u{0301}; rm -rf ~'"))
        let encoded = URL(string: "https://me:p%40ss%3Aw@x.test/a?b=c")!
        #expect(Redaction.standard.redact(encoded) == "https://me:REDACTED@x.test/a?b=c")
        // A user name standing alone is hidden (it is often a token); an `@` in the path is not user info.
        #expect(Redaction.standard.redact(URL(string: "https://me@x.test/a@b")!) == "https://REDACTED@x.test/a@b")
        let get = HTTPRequest(method: .get, url: testBase)
        #expect(get.cURLDescription() == "curl 'https://api.example.com/v1'")
        let head = HTTPRequest(method: .head, url: testBase, body: .file(URL(fileURLWithPath: "/tmp/a b")))
        #expect(head.cURLDescription() == "curl --head 'https://api.example.com/v1' \\\n  --data-binary '@/tmp/a b'")
        let binary = HTTPRequest(method: .put, url: testBase, body: .data(Data([0xFF, 0x00, 0xFE])))
        #expect(binary.cURLDescription().hasSuffix("--data-binary @- # 3 bytes of binary data"))
    }
}
