import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// Logs and `curl` renderings never show `Authorization`, `Cookie`, `Set-Cookie`, `Proxy-Authorization`, a URL's
    /// password or configured secret query parameters, whatever their spelling, through the real transport and a
    /// request that fails, is retried and succeeds.
    @Suite struct RedactionTests {
        /// Every secret the requests below carry; none may appear in any rendering.
        static let secrets = [
            "bearer-s3cret", "cookie-s3cret", "proxy-s3cret", "set-cookie-s3cret", "second-cookie-s3cret",
            "query-s3cret", "default-query-s3cret", "encoded-s3cret", "upper-s3cret", "password-s3cret",
            "signature-s3cret",
        ]

        static let redaction = Redaction(headers: ["X-Signature"], queryParameters: ["api_key", "token"])

        /// `/flaky` answers 503 then 200 with two `Set-Cookie` fields; `/broken` closes before the status line.
        private static func makeServer() throws -> LoopbackServer {
            let attempts = Locked(0)
            let server = LoopbackServer(synchronousHandler: { request in
                if request.path == "/broken" { return .fault(.closeBeforeStatusLine) }
                let attempt = attempts.withLock {
                    $0 += 1
                    return $0
                }
                if attempt == 1 { return .response(HTTPResponse(status: 503, headers: ["Retry-After": "0"])) }
                var headers: HTTPHeaders = ["Content-Type": "application/json"]
                headers.add(name: "Set-Cookie", value: "session=set-cookie-s3cret; HttpOnly")
                headers.add(name: "set-cookie", value: "other=second-cookie-s3cret")
                return .response(HTTPResponse(status: 200, headers: headers, body: Data("{}".utf8)))
            })
            try server.start()
            return server
        }

        private static func renderings(of events: [LogEvent]) -> [String] {
            events.flatMap { event in
                [event.description, event.url, "\(event.headers)"] + event.headers.map { "\($0.name): \($0.value)" }
            }
        }

        private static func expectNoSecret(in texts: [String], sourceLocation: SourceLocation = #_sourceLocation) {
            for text in texts {
                for secret in secrets {
                    #expect(!text.contains(secret), "\(secret) shown in \(text)", sourceLocation: sourceLocation)
                }
            }
        }

        @Test func logEventsOfAFailingRetriedAndSucceedingRequestShowNoSecret() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let events = Locked<[LogEvent]>([])
            let base = try #require(URL(string: "http://user:password-s3cret@127.0.0.1:\(server.port)"))
            var headers: HTTPHeaders = ["authorization": "Bearer bearer-s3cret", "COOKIE": "a=cookie-s3cret"]
            headers.add(name: "Proxy-Authorization", value: "Basic proxy-s3cret")
            let api = API(
                configuration: APIConfiguration(
                    baseURL: base, headers: headers, query: ["token": "default-query-s3cret"],
                    redaction: Self.redaction,
                    middleware: [
                        RetryMiddleware(policy: RetryPolicy(maxAttempts: 2, initialDelay: .zero, jitter: 0)),
                        LoggingMiddleware({ event in events.withLock { $0.append(event) } }), ValidationMiddleware(),
                        CoalescingMiddleware(),
                    ]))

            _ = try await api.get(
                "flaky", query: ["api_key": "query-s3cret", "page": "2"], headers: ["x-signature": "signature-s3cret"])

            let logged = events.withLock { $0 }
            #expect(logged.count == 6, "sent, 503, failed, retrying, sent, 200")
            Self.expectNoSecret(in: Self.renderings(of: logged))
            let first = try #require(logged.first)
            #expect(first.headers["Authorization"] == Redaction.placeholder)
            #expect(first.headers["Cookie"] == Redaction.placeholder)
            #expect(first.headers["Proxy-Authorization"] == Redaction.placeholder)
            #expect(first.headers["X-Signature"] == Redaction.placeholder)
            #expect(first.url.contains("page=2"), "other parameters stay readable")
            let last = try #require(logged.last)
            // URLSession folds the two Set-Cookie fields into one.
            let setCookies = last.headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value)
            #expect(!setCookies.isEmpty && setCookies.allSatisfy { $0 == Redaction.placeholder })
            let sent = try #require(server.requests.last)
            #expect(sent.headers["Authorization"] == "Bearer bearer-s3cret", "the server still gets the credentials")
        }

        @Test func aTransportFailureIsLoggedWithoutSecrets() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let events = Locked<[LogEvent]>([])
            let api = API(
                configuration: APIConfiguration(
                    baseURL: server.baseURL, headers: ["Authorization": "Bearer bearer-s3cret"],
                    redaction: Self.redaction,
                    middleware: [
                        RetryMiddleware(), LoggingMiddleware({ event in events.withLock { $0.append(event) } }),
                        ValidationMiddleware(), CoalescingMiddleware(),
                    ]))

            await #expect(throws: CRUDError.self) { try await api.get("broken", query: ["token": "query-s3cret"]) }

            let logged = events.withLock { $0 }
            #expect(logged.count == 2, "sent, failed")
            Self.expectNoSecret(in: Self.renderings(of: logged))
        }

        /// The failure inside a `.failed` event is redacted too: Foundation's `URLError` keeps the failing URL (query
        /// included) in its user info, so the event carries a copy with that URL redacted.
        @Test func theErrorInsideAFailedEventHidesTheFailingURL() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let events = Locked<[LogEvent]>([])
            let api = API(
                configuration: APIConfiguration(
                    baseURL: server.baseURL,
                    redaction: Self.redaction,
                    middleware: [
                        RetryMiddleware(), LoggingMiddleware({ event in events.withLock { $0.append(event) } }),
                        ValidationMiddleware(), CoalescingMiddleware(),
                    ]))

            await #expect(throws: CRUDError.self) { try await api.get("broken", query: ["token": "query-s3cret"]) }

            let kinds = events.withLock { $0 }.map { "\($0.kind)" }
            #expect(kinds.count == 2)
            #expect(!kinds.joined().contains("query-s3cret"))
        }

        @Test func anHTTPStatusFailureInAnEventHidesSecretHeadersAndQueryValues() {
            let response = HTTPResponse(
                status: 500, headers: ["Set-Cookie": "session=cookie-s3cret"], body: Data("{}".utf8),
                url: URL(string: "https://api.example.com/a?token=query-s3cret"))

            let shown = Self.redaction.redact(CRUDError.httpStatus(response))

            #expect(shown.status == 500)
            #expect(!"\(shown)".contains("s3cret"))
            #expect(shown.response?.headers["Set-Cookie"] == Redaction.placeholder)
        }

        @Test(arguments: [
            "https://api.example.com/a?api_key=query-s3cret",
            "https://api.example.com/a?API_KEY=upper-s3cret&page=1",
            "https://api.example.com/a?api%5Fkey=encoded-s3cret",
            "https://api.example.com/a?page=1&token=query-s3cret&token=upper-s3cret#frag",
            "https://user:password-s3cret@api.example.com/a",
            "https://:password-s3cret@api.example.com/a?token=query-s3cret",
        ])
        func cURLHidesSecretsInEverySpelling(url: String) throws {
            var headers: HTTPHeaders = ["AUTHORIZATION": "Bearer bearer-s3cret", "cookie": "a=cookie-s3cret"]
            headers.add(name: "Proxy-Authorization", value: "Basic proxy-s3cret")
            headers.add(name: "Cookie", value: "b=second-cookie-s3cret")
            headers.add(name: "X-Signature", value: "signature-s3cret")
            let request = HTTPRequest(
                method: .post, url: try #require(URL(string: url)), headers: headers, body: .data(Data("{}".utf8)))

            let rendered = request.cURLDescription(redacting: Self.redaction)

            Self.expectNoSecret(in: [rendered])
            #expect(rendered.contains("api.example.com/a"))
            #expect(rendered.components(separatedBy: "REDACTED").count - 1 >= 5)
        }

        /// A secret parameter written as a list or nested field (`token[]=…`, `token[0]=…`, the bracket style
        /// ``FormParameters`` uses) is hidden by its base name.
        @Test func bracketedListNamesAreHiddenByTheirBaseName() throws {
            var request = HTTPRequest(url: try #require(URL(string: "https://api.example.com/a")))
            try request.appendQuery(["token": ["query-s3cret"], "page": "2"])

            let rendered = request.cURLDescription(redacting: Self.redaction)

            #expect(!rendered.contains("query-s3cret"))
            #expect(rendered.contains("page=2"))
            #expect(Self.redaction.hidesQueryParameter("TOKEN[inner]"))
            #expect(!Self.redaction.hidesQueryParameter("tokens"))
        }
    }
}
