import CRUDKit
@_spi(TransportKit) import CRUDKitCore
import CRUDKitTesting
import Foundation
import Testing

/// Everything a person might print of an error, a request or a response hides secrets (issue 13, items 6–11):
/// `"\(error)"`, `String(reflecting:)`, `localizedDescription`, `cURLDescription`, log events.
@Suite struct DescriptionRedactionTests {
    /// Every way a person prints an error.
    static func renderings(of error: CRUDError) -> [String] {
        ["\(error)", String(reflecting: error), error.localizedDescription, (error as any Error).localizedDescription]
    }

    static func expectHidden(
        _ secrets: [String], in texts: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for text in texts {
            for secret in secrets {
                #expect(!text.contains(secret), "\(secret) shown in \(text)", sourceLocation: sourceLocation)
            }
        }
    }

    static func expectShown(
        _ facts: [String], in texts: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for text in texts {
            for fact in facts {
                #expect(text.contains(fact), "\(fact) missing from \(text)", sourceLocation: sourceLocation)
            }
        }
    }

    // MARK: - 6. The error's own description

    /// 6: `"\(error)"` of an HTTP error dumped the enum: `Set-Cookie: session=…` and the URL with its password and
    /// secret query value.
    @Test func anHTTPErrorPrintsWithoutItsCookiesPasswordOrSecretQuery() throws {
        let url = try #require(URL(string: "https://user:pw-s3cret@api.example.com/v1/people?token=tok-s3cret&page=2"))
        let response = HTTPResponse(
            status: 503, headers: ["Set-Cookie": "session=cookie-s3cret; HttpOnly", "Retry-After": "1"],
            body: Data("busy".utf8), url: url)

        for error in [
            CRUDError.httpStatus(response), .conflict(response), .validation(message: "no", response: response),
        ] {
            let texts = Self.renderings(of: error)
            Self.expectHidden(["pw-s3cret", "tok-s3cret", "cookie-s3cret"], in: texts)
            Self.expectShown([String(response.status), "api.example.com/v1/people"], in: texts)
        }
        Self.expectShown(["page=2", "busy"], in: Self.renderings(of: .httpStatus(response)))
    }

    /// 6: a transport error keeps Foundation's failing URL (`NSErrorFailingURLKey=http://user:pw@…?token=…`).
    @Test func aTransportErrorPrintsWithoutTheFailingURLsSecrets() throws {
        let url = try #require(URL(string: "http://user:pw-s3cret@127.0.0.1:9/v1/broken?token=tok-s3cret"))
        let underlying = URLError(
            .networkConnectionLost,
            userInfo: [
                NSURLErrorFailingURLErrorKey: url, "NSErrorFailingURLStringKey": url.absoluteString,
                NSLocalizedDescriptionKey: "The network connection was lost.",
            ])

        let texts = Self.renderings(of: .transport(underlying: underlying))

        Self.expectHidden(["pw-s3cret", "tok-s3cret"], in: texts)
        Self.expectShown(["127.0.0.1:9/v1/broken", "The network connection was lost."], in: texts)
    }

    // MARK: - CustomStringConvertible

    /// `print(error)` shows the same readable sentence as `localizedDescription`, not the enum with every header.
    @Test func printingAnErrorShowsItsSentence() {
        let response = HTTPResponse(
            status: 404, headers: ["Content-Type": "text/plain", "X-Request-Id": "r-1"], body: Data("gone".utf8),
            url: URL(string: "https://api.example.com/v1/people/12"))
        let errors: [CRUDError] = [
            .httpStatus(response), .invalidRequest(reason: "no id"), .cancelled, .timedOut(.idle(3)),
            .responseTooLarge(limit: 10), .tooManyRedirects(limit: 5),
        ]
        for error in errors {
            #expect("\(error)" == error.localizedDescription)
            #expect(String(reflecting: error) == error.localizedDescription)
        }
        #expect("\(CRUDError.httpStatus(response))".hasPrefix("The server answered 404"))
        #expect(!"\(CRUDError.httpStatus(response))".contains("X-Request-Id"))
    }

    // MARK: - 7. Bodies quoted in descriptions

    /// 7: a 500 debug page echoes the request's credentials; the description quotes its first 200 bytes. The
    /// values this request sent (bearer token, API key, cookie) are masked wherever they appear.
    @Test func aDebugPageEchoingTheRequestsCredentialsIsMasked() async throws {
        let stubs = StubTransport()
        stubs.on(.get, "people", handler: Self.echoingDebugPage)
        let api = API(
            configuration: APIConfiguration(
                baseURL: URL(string: "https://api.example.com/v1"),
                headers: [
                    "Authorization": "Bearer bearer-s3cret-value", "X-API-Key": "apikey-s3cret-value",
                    "Cookie": "session=cookie-s3cret-value; theme=dark",
                ],
                transport: stubs))

        var caught: CRUDError?
        do { _ = try await api.get("people") } catch let error as CRUDError { caught = error }
        let error = try #require(caught)

        let texts = Self.renderings(of: error)
        Self.expectHidden(["bearer-s3cret-value", "apikey-s3cret-value", "cookie-s3cret-value"], in: texts)
        Self.expectShown(["500", "Traceback", "api.example.com/v1/people"], in: texts)
    }

    /// A Django-style debug page: the credentials appear in table cells, not as `Name: value` lines.
    @Sendable static func echoingDebugPage(_ request: StubRequest) -> StubResponse {
        let headers = request.request.headers
        let page = """
            <h1>Traceback</h1><table><tr><td>HTTP_AUTHORIZATION</td><td>\(headers["Authorization"] ?? "")</td></tr>\
            <tr><td>HTTP_X_API_KEY</td><td>\(headers["X-API-Key"] ?? "")</td></tr>\
            <tr><td>COOKIES</td><td>\((headers["Cookie"] ?? "").split(separator: "=").last ?? "")</td></tr></table>
            """
        return .text(page, status: 500)
    }

    /// 7: a 400 answer of a token endpoint names the refresh token it refused, and other secret JSON keys.
    @Test func secretJSONKeysInAQuotedBodyAreMasked() {
        let body =
            #"{"error": "invalid_grant", "refresh_token": "rt-s3cret", "client_secret":"cs-s3cret", "user": "ada"}"#
        let error = CRUDError.httpStatus(HTTPResponse(status: 400, body: Data(body.utf8)))

        _ = API(baseURL: nil)  // installs the error body reader descriptions show parsed messages with

        let texts = Self.renderings(of: error)

        Self.expectHidden(["rt-s3cret", "cs-s3cret"], in: texts)
        Self.expectShown(["400", "invalid_grant"], in: texts)
        // The raw body is quoted in the debug description (the others show the parsed messages).
        Self.expectShown([#""user": "ada""#, #""refresh_token": "REDACTED""#], in: [String(reflecting: error)])
    }

    struct TokenAnswer: Decodable {
        var accessToken: String
        var expiresIn: Int

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
        }
    }

    /// 7: a token answer that does not decode is quoted in the decoding error.
    @Test func aDecodingErrorOfATokenAnswerMasksTheToken() throws {
        let body = Data(#"{"access_token": "at-s3cret", "expires_in": "soon", "token_type": "Bearer"}"#.utf8)
        var thrown: (any Error)?
        do { _ = try JSONDecoder().decode(TokenAnswer.self, from: body) } catch { thrown = error }

        let error = CRUDError.decoding(try #require(thrown), body: body)

        let texts = Self.renderings(of: error)
        Self.expectHidden(["at-s3cret"], in: texts)
        Self.expectShown(["expires_in", "soon"], in: texts)
    }

    // MARK: - 8. URLs inside logged header values

    /// 8: `Link` and `Content-Location` carry URLs whose secret query values were logged in clear.
    @Test func urlsInsideLoggedHeaderValuesAreRedacted() async throws {
        let headers: HTTPHeaders = [
            "Link": #"<https://api.example.com/v1/people?page=2&token=link-s3cret>; rel="next""#,
            "Content-Location": "/v1/people?access_token=location-s3cret&page=1",
        ]
        let redacted = Redaction.standard.redact(headers)
        #expect(redacted["Link"] == #"<https://api.example.com/v1/people?page=2&token=REDACTED>; rel="next""#)
        #expect(redacted["Content-Location"] == "/v1/people?access_token=REDACTED&page=1")

        let events = Locked<[LogEvent]>([])
        let stubs = StubTransport()
        stubs.on(.get, "people", .json(["ok": true], headers: headers))
        let api = API(
            configuration: APIConfiguration(
                baseURL: URL(string: "https://api.example.com/v1"), transport: stubs,
                middleware: [
                    RetryMiddleware(), LoggingMiddleware({ event in events.withLock { $0.append(event) } }),
                    ValidationMiddleware(), CoalescingMiddleware(),
                ]))
        _ = try await api.get("people")

        let logged = events.withLock { $0 }.flatMap { event in event.headers.map(\.value) + ["\(event)"] }
        #expect(!logged.isEmpty)
        Self.expectHidden(["link-s3cret", "location-s3cret"], in: logged)
    }

    // MARK: - 9. invalidRequest

    /// 9: the reason of `invalidRequest` for a bad URL quoted it as is.
    @Test func anInvalidRequestForABadURLHidesItsSecrets() throws {
        let url = try #require(URL(string: "ftp://user:pw-s3cret@files.example.com/f?token=tok-s3cret"))
        var caught: CRUDError?
        do { try HTTPRequest(url: url).validate() } catch let error as CRUDError { caught = error }
        let error = try #require(caught)

        let texts = Self.renderings(of: error)

        Self.expectHidden(["pw-s3cret", "tok-s3cret"], in: texts)
        Self.expectShown(["ftp://user:", "files.example.com/f", "not an absolute http(s) URL"], in: texts)
    }

    // MARK: - 10. cURL

    /// 10: `cURLDescription` printed a form body's `password=…&token=…` and a user name standing as a token.
    @Test func cURLHidesFormSecretsAndAUserNameToken() throws {
        let request = HTTPRequest(
            method: .post, url: try #require(URL(string: "https://user-s3cret@api.example.com/v1/login")),
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: .data(Data("username=ada&password=pw-s3cret&token=tok-s3cret&remember=1".utf8)))

        let curl = request.cURLDescription()

        Self.expectHidden(
            ["user-s3cret", "pw-s3cret", "tok-s3cret"], in: [curl, "\(request)", String(reflecting: request)])
        Self.expectShown(["api.example.com/v1/login", "username=ada", "remember=1", "password=REDACTED"], in: [curl])
    }

    /// A JSON body's secret keys are hidden in `cURLDescription` too.
    @Test func cURLHidesSecretJSONKeys() throws {
        let request = HTTPRequest(
            method: .post, url: try #require(URL(string: "https://api.example.com/v1/token")),
            body: .data(Data(#"{"grant_type":"refresh_token","refresh_token":"rt-s3cret"}"#.utf8)))

        let curl = request.cURLDescription()

        Self.expectHidden(["rt-s3cret"], in: [curl])
        Self.expectShown([#""grant_type":"refresh_token""#], in: [curl])
    }

    /// A multipart body's secret parts are hidden in `cURLDescription`; the other parts stay readable.
    @Test func cURLHidesSecretMultipartParts() throws {
        let body = [
            "--b0", #"Content-Disposition: form-data; name="user""#, "", "ada", "--b0",
            #"Content-Disposition: form-data; name="password""#, "", "pw-s3cret", "--b0",
            #"Content-Disposition: form-data; name="api_key""#, "", "key-s3cret", "--b0--", "",
        ].joined(separator: "\r\n")
        let request = HTTPRequest(
            method: .post, url: try #require(URL(string: "https://api.example.com/v1/upload")),
            headers: ["Content-Type": "multipart/form-data; boundary=b0"], body: .data(Data(body.utf8)))

        let curl = request.cURLDescription()

        Self.expectHidden(["pw-s3cret", "key-s3cret"], in: [curl])
        Self.expectShown(["ada", #"name="password""#, "--b0--"], in: [curl])
    }

    // MARK: - Responses and requests

    /// `HTTPResponse` and `HTTPRequest` describe themselves with secret headers and URL secrets hidden.
    @Test func responsesAndRequestsDescribeThemselvesRedacted() throws {
        let url = try #require(URL(string: "https://user:pw-s3cret@api.example.com/v1/a?token=tok-s3cret"))
        let response = HTTPResponse(
            status: 201, headers: ["Set-Cookie": "sid=cookie-s3cret", "ETag": "\"v1\""], body: Data("{}".utf8), url: url
        )
        let request = HTTPRequest(
            method: .put, url: url, headers: ["Authorization": "Basic basic-s3cret", "X-API-Key": "key-s3cret"])

        let texts = ["\(response)", String(reflecting: response), "\(request)", String(reflecting: request)]

        Self.expectHidden(["pw-s3cret", "tok-s3cret", "cookie-s3cret", "basic-s3cret", "key-s3cret"], in: texts)
        Self.expectShown(["api.example.com/v1/a"], in: texts)
        Self.expectShown(["201", "ETag"], in: Array(texts.prefix(2)))
        Self.expectShown(["PUT"], in: Array(texts.suffix(2)))
    }
}
