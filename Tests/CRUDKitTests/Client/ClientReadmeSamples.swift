import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

// The code samples of README's "The API and middleware", compiled here so they cannot rot. The samples that need
// a server take the API (or its transport) as a parameter; the test below runs them on an in-process transport.

private let storedAccessToken = "stale"
private let refreshToken = "r-1"

private struct Person: Codable, Sendable {
    var id: Int?
    var firstName: String
    var lastName: String
}
private struct Status: Decodable, Sendable { var healthy: Bool }
private struct Tokens: Decodable, Sendable { var access: String }

// MARK: - Configure

private func readmeConfigure() {
    API.shared = API(
        baseURL: URL(string: "https://api.example.com/v1")!,
        headers: ["Accept-Language": "en"],
        query: ["api_version": "3"]
    )
}

// MARK: - A custom endpoint call

private func readmeCustomCall(api: API) async throws -> Bool {
    let status: Status = try await api.get("status")
    try await api.post("people/12/archive", body: .json(["reason": "moved away"]))
    let page = try await api.get(URL(string: "https://cdn.example.com/exports/people.csv")!)
    return status.healthy && page.status == 200
}

private func readmeFutureCall(api: API, done: @escaping @Sendable (Bool) -> Void) {
    api.get("status", as: Status.self)
        .onSuccess { status in done(status.healthy) }
        .onFailure { error in done(false) }
}

// MARK: - A typed request

private enum PeopleAPI {
    static func search(_ text: String) -> Request<[Person]> {
        Request(.get, "people/search", query: ["q": text])
    }

    static func page(_ number: Int) -> Request<[Person]> {
        Request(.get, "people", at: "results", query: ["page": String(number)])  // DRF's {"count": …, "results": […]}
    }

    static func archive(id: String) -> Request<Okay> {
        Request(.post, Endpoint.segments(["people", id, "archive"]), decoder: .okay)
    }
}

private func readmeTypedRequest(api: API) async throws -> [Person] {
    let found = try await api.send(PeopleAPI.search("Ada Lovelace"))
    let firstPage = try await api.send(PeopleAPI.page(1))
    try await api.send(PeopleAPI.archive(id: "a/b"))  // one segment: people/a%2Fb/archive
    return found + firstPage
}

// MARK: - Authentication with token refresh

/// The README's sample, with a test transport: the refresh goes through the API it guards.
private let readmeAuthTransport = StubTransport()
    .on(nil, "**") { request in
        request.recorded.header("Authorization") == "Bearer fresh"
            ? .json(text: #"{"healthy": true}"#) : .json(text: "{}", status: 401)
    }
    .on(.post, "/v1/token/refresh", .json(text: #"{"access": "fresh"}"#))

private enum Backend {
    static let auth: TokenRefresher = TokenRefresher(token: storedAccessToken) { expired in
        // Through the API it guards: this request is the refresh's own, so `auth` lets it pass.
        let tokens: Tokens = try await api.post("token/refresh", body: .json(["refresh": refreshToken]))
        return tokens.access
    }
    static let api: API = API(
        baseURL: URL(string: "https://api.example.com/v1")!,
        transport: readmeAuthTransport,
        middleware: .standard.inserting(
            RetryMiddleware(
                policy: RetryPolicy(maxAttempts: 1) { request, error, context in
                    if error.status == 403 { /* end the session here */ return .fail(error) }
                    return .doNotRetry  // the policy's own rules decide
                }))
    ).with {
        $0.middleware.insert(auth, after: .retry)  // once per attempt
        $0.middleware.insert(
            .validate { response in
                // Some APIs answer 200 with {"error": "…"}: make that a failure.
                if let message = (try? JSON(data: response.body))?["error"].string {
                    throw CRUDError.validation(message: message, response: response)
                }
            }, after: .validation)  // sees every response before the status check
    }
}

// MARK: - Retry policy

private func readmeRetryingAPI(transport: any Transport) -> API {
    API(
        baseURL: URL(string: "https://api.example.com/v1")!,
        transport: transport,
        middleware: .standard.inserting(
            RetryMiddleware(
                policy: RetryPolicy(maxAttempts: 4, initialDelay: .milliseconds(200), maxTotalTime: .seconds(20))))
    ).with {
        $0.middleware.insert(IdempotencyKeyMiddleware())  // POSTs carry an Idempotency-Key, so they may be retried too
    }
}

// MARK: - Logging

private func readmeLogging(transport: any Transport, lines: Locked<[String]>) async throws -> String {
    let api = API(
        configuration: APIConfiguration(
            baseURL: URL(string: "https://api.example.com/v1")!,
            transport: transport,
            redaction: Redaction(queryParameters: ["api_key"])
        )
    ).with {
        // In an app: LoggingMiddleware { event in print(event) }
        $0.middleware.insert(LoggingMiddleware { event in lines.withLock { $0.append(event.description) } })
    }
    try await api.get("people", query: ["api_key": "k-123"])

    let request = try api.makeHTTPRequest(
        Request(.delete, "people/12", headers: ["Authorization": "Bearer t"], decoder: .okay))
    return request.cURLDescription(redacting: api.configuration.redaction)
    // curl -X DELETE 'https://api.example.com/v1/people/12' \
    //   -H 'Authorization: REDACTED' \
    //   -H 'Accept: application/json'
}

@Suite struct ClientReadmeSamplesTests {
    @Test func configureCompiles() {
        // Installing a global default here would disturb other suites; the function is compiled, not run.
        _ = readmeConfigure
    }

    @Test func customCallsAndTypedRequestsRun() async throws {
        let transport = StubTransport()
            .on(nil, "**", .json(text: "{}"))
            .on(nil, "/v1/status", .json(text: #"{"healthy": true}"#))
            .on(nil, "/v1/people/search", .json(text: #"[{"id": 1, "first_name": "Ada", "last_name": "Lovelace"}]"#))
            .on(
                nil, "/v1/people", .json(text: #"{"count": 1, "results": [{"first_name": "Grace", "last_name": "H"}]}"#)
            )
        let api = API(baseURL: URL(string: "https://api.example.com/v1")!, transport: transport)
        #expect(try await readmeCustomCall(api: api))
        #expect(try await readmeTypedRequest(api: api).map(\.firstName) == ["Ada", "Grace"])
        let healthy = await withCheckedContinuation { continuation in
            readmeFutureCall(api: api) { continuation.resume(returning: $0) }
        }
        #expect(healthy)
        let urls = transport.recorder.requests.map(\.request.url.absoluteString)
        #expect(urls.contains("https://cdn.example.com/exports/people.csv"))
        #expect(urls.contains("https://api.example.com/v1/people/search?q=Ada%20Lovelace"))
        #expect(urls.contains("https://api.example.com/v1/people/a%2Fb/archive"))
    }

    @Test func authenticationRefreshesOnceThroughTheSameAPI() async throws {
        let status: Status = try await Backend.api.get("status")
        #expect(status.healthy)
        let sent = readmeAuthTransport.recorder.requests.map { "\($0.request.method.rawValue) \($0.request.url.path)" }
        #expect(sent == ["GET /v1/status", "POST /v1/token/refresh", "GET /v1/status"])
        #expect(readmeAuthTransport.recorder.requests[1].header("Authorization") == nil)
        #expect(await Backend.auth.refreshCount == 1)
        // The sample's transport is a global; what it recorded would outlive the test, and LeakSanitizer cannot see
        // a `Data` held inside an enum payload (see .ci/lsan.supp), so nothing recorded is kept past the test.
        readmeAuthTransport.recorder.removeAll()
    }

    @Test func retryingAPIRetriesPosts() async throws {
        let transport = StubTransport().on(
            nil, "**", sequence: [.json(text: "{}", status: 503), .json(text: "{}", status: 201)])
        let api = readmeRetryingAPI(transport: transport).with { $0.clock = ManualClock() }
        try await api.post("people", body: .json(["firstName": "Ada"]))
        #expect(transport.recorder.count == 2)
    }

    @Test func loggingHidesSecrets() async throws {
        let lines = Locked<[String]>([])
        let curl = try await readmeLogging(transport: StubTransport().on(nil, "**", .json(text: "[]")), lines: lines)
        let logged = lines.withLock { $0 }
        #expect(logged.count == 2)
        #expect(logged.first == "→ GET https://api.example.com/v1/people?api_key=REDACTED (attempt 1)")
        #expect(logged.last?.hasPrefix("← 200 GET https://api.example.com/v1/people?api_key=REDACTED in ") == true)
        #expect(
            curl == """
                curl -X DELETE 'https://api.example.com/v1/people/12' \\
                  -H 'Authorization: REDACTED' \\
                  -H 'Accept: application/json'
                """)
    }
}
