import CRUDKit
@_spi(TransportKit) import CRUDKitCore
import CRUDKitTesting
import Foundation
import Testing

/// Random secrets planted in URLs (user info, secret query parameters), credential headers, cookies and secret JSON
/// or form body keys never appear in any description of any error, request, response or log event — nor of the
/// headers, query, body, typed request, endpoint or configuration they came from — while the status, host and path
/// stay readable.
@Suite struct SecretDescriptionPropertyTests {
    static let iterations = 300
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    static let queryNames = [
        "token", "access_token", "api_key", "apiKey", "password", "client_secret", "X-Amz-Signature",
    ]
    static let jsonKeys = [
        "password", "token", "secret", "refresh_token", "access_token", "client_secret", "api_key", "idToken",
    ]
    static let headerNames = ["Authorization", "Proxy-Authorization", "X-API-Key", "Api-Key", "X-Auth-Token", "Cookie"]

    static func secret(_ random: inout SeededGenerator) -> String {
        let count = Int.random(in: 12...28, using: &random)
        return String((0..<count).map { _ in alphabet.randomElement(using: &random)! })
    }

    /// One planted case: a URL, request headers, a response and the secrets hidden in them.
    struct Plant {
        var userInfo: String
        var queryName: String
        var url: URL
        var requestHeaders: HTTPHeaders
        var requestBody: Data
        var response: HTTPResponse
        var secrets: [String]
    }

    static func plant(_ random: inout SeededGenerator) -> Plant {
        let secrets = (0..<7).map { _ in secret(&random) }
        let status = [400, 401, 403, 404, 409, 422, 500, 502, 503].randomElement(using: &random)!
        let userInfo = Bool.random(using: &random) ? "user:\(secrets[0])@" : "\(secrets[0])@"
        let name = queryNames.randomElement(using: &random)!
        let url = URL(string: "https://\(userInfo)api.example.com/v1/items/7?page=3&\(name)=\(secrets[1])")!
        var headers: HTTPHeaders = ["Accept": "application/json"]
        let headerName = headerNames.randomElement(using: &random)!
        switch headerName {
        case "Authorization": headers.add(name: headerName, value: "Bearer \(secrets[2])")
        case "Proxy-Authorization": headers.add(name: headerName, value: "Basic \(secrets[2])")
        case "Cookie": headers.add(name: headerName, value: "theme=dark; session=\(secrets[2])")
        default: headers.add(name: headerName, value: secrets[2])
        }
        let key = jsonKeys.randomElement(using: &random)!
        let requestBody =
            Bool.random(using: &random)
            ? Data(#"{"name":"Ada","\#(key)":"\#(secrets[3])"}"#.utf8)
            : Data("name=Ada&\(name)=\(secrets[3])".utf8)
        let body: String
        switch Int.random(in: 0..<4, using: &random) {
        case 0: body = #"{"detail":"refused","\#(key)": "\#(secrets[4])"}"#
        case 1: body = "<pre>\(headerName): \(headerName == "Cookie" ? "session=" : "Bearer ")\(secrets[4])</pre>"
        case 2: body = "refused: \(name)=\(secrets[4])&page=3"
        default: body = #"{"echo": {"url": "https://\#(userInfo)api.example.com/v1/items/7?\#(name)=\#(secrets[1])"}}"#
        }
        let response = HTTPResponse(
            status: status,
            headers: [
                "Set-Cookie": "sid=\(secrets[5]); Path=/", "Content-Type": "application/json",
                "Link": "</v1/items/8?\(name)=\(secrets[6])>; rel=\"next\"",
            ],
            body: Data(body.utf8), url: url)
        return Plant(
            userInfo: userInfo, queryName: name, url: url, requestHeaders: headers, requestBody: requestBody,
            response: response, secrets: secrets)
    }

    static func errors(of plant: Plant) -> [CRUDError] {
        let urlError = URLError(
            .cannotConnectToHost,
            userInfo: [
                NSURLErrorFailingURLErrorKey: plant.url, "NSErrorFailingURLStringKey": plant.url.absoluteString,
            ])
        let tokenBody = Data(#"{"access_token": "\#(plant.secrets[4])", "expires_in": "later"}"#.utf8)
        let mapping = JSONMappingError(keyPath: "expires_in", expected: "Int", found: "a string \"later\"")
        return [
            .httpStatus(plant.response), .conflict(plant.response),
            .validation(message: "rejected \(plant.url.absoluteString)", response: plant.response),
            .transport(underlying: urlError),
            .decoding(mapping, body: tokenBody),
            .invalidRequest(reason: "the URL \(plant.url.absoluteString) is not an absolute http(s) URL"),
        ]
    }

    /// `print`, `debugPrint` and `dump` (which walks the value with `Mirror`: every stored property unless the type
    /// says otherwise).
    static func renderings(of value: some Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return ["\(value)", String(reflecting: value), dumped]
    }

    /// The values a person prints while building a request: headers, a query or form, a body, a typed request,
    /// an endpoint, a configuration. Each rendering must still show what is not secret.
    static func valueRenderings(of plant: Plant) -> [String] {
        let query: FormParameters = [plant.queryName: .string(plant.secrets[1]), "page": "3"]
        let request = Request(
            .post, Endpoint.url(plant.url), query: query, body: .form(query), headers: plant.requestHeaders,
            decoder: .response)
        let configuration = APIConfiguration(
            baseURL: URL(string: "https://\(plant.userInfo)api.example.com/v1"), headers: plant.requestHeaders,
            query: query)
        let values: [any Sendable] = [
            plant.requestHeaders, plant.response.headers, query, RequestBody.form(query), request,
            Endpoint.url(plant.url), configuration, PageRequest(url: plant.url), PageRequest(query: query),
            plant.requestHeaders.fields, query.fields,
        ]
        let texts = values.flatMap { renderings(of: $0) }
        #expect(renderings(of: query).allSatisfy { $0.contains("page=3") })
        #expect(renderings(of: request).allSatisfy { $0.contains("api.example.com/v1/items/7") })
        #expect(renderings(of: configuration).allSatisfy { $0.contains("api.example.com/v1") })
        #expect(renderings(of: plant.requestHeaders).allSatisfy { $0.contains("Accept: application/json") })
        return texts
    }

    @Test func plantedSecretsNeverAppearInAnyDescription() throws {
        var random = SeededGenerator(seed: 0x5EC2_E75E_ED13)
        var checked = 0
        var shown = 0
        for _ in 0..<Self.iterations {
            let plant = Self.plant(&random)
            var texts: [String] = []
            for error in Self.errors(of: plant) {
                let shown = Self.renderings(of: error) + [error.localizedDescription]
                texts += shown
                if let status = error.status {
                    #expect(
                        shown.allSatisfy { $0.contains(String(status)) && $0.contains("api.example.com/v1/items/7") })
                }
                let event = LogEvent(
                    kind: .failed(error), method: .get, url: plant.url.absoluteString, attempt: 1, duration: .zero)
                texts += Self.renderings(of: event) + Self.renderings(of: event.kind)
            }
            let request = HTTPRequest(
                method: .post, url: plant.url, headers: plant.requestHeaders, body: .data(plant.requestBody))
            let curl = request.cURLDescription()
            #expect(curl.contains("api.example.com/v1/items/7") && curl.contains("page=3"))
            texts += [curl] + Self.renderings(of: request) + Self.renderings(of: plant.response)
            texts += Self.renderings(
                of: LogEvent(kind: .requestSent, method: .post, url: plant.url.absoluteString, attempt: 1))
            texts += Self.valueRenderings(of: plant)
            checked += texts.count
            for text in texts {
                for secret in plant.secrets where text.contains(secret) {
                    shown += 1
                    Issue.record("\(secret) shown in \(text)")
                }
            }
            #expect(Self.renderings(of: plant.response).allSatisfy { $0.contains("api.example.com/v1/items/7") })
        }
        print(
            "RELIABILITY redaction: cases=\(Self.iterations) secrets=\(Self.iterations * 7) renderings=\(checked) shown=\(shown)"
        )
    }

    /// Through an API, the credentials the request sent are masked even where a server echoes them with no name
    /// next to them (a table cell of a debug page).
    @Test func echoedCredentialsAreMaskedThroughAnAPI() async throws {
        var random = SeededGenerator(seed: 0xC0FF_EE00_1234)
        for _ in 0..<100 {
            let plant = Self.plant(&random)
            let stubs = StubTransport()
            stubs.on(nil, "items/:id", handler: Self.echo)
            let base = URL(string: "https://\(plant.userInfo)api.example.com/v1")
            let api = API(
                configuration: APIConfiguration(baseURL: base, headers: plant.requestHeaders, transport: stubs))
            var caught: CRUDError?
            do {
                _ = try await api.post(
                    "items/7", query: [plant.queryName: plant.secrets[1], "page": "3"], body: .data(plant.requestBody))
            } catch let error as CRUDError {
                caught = error
            }
            let error = try #require(caught)
            let texts = Self.renderings(of: error) + [error.localizedDescription]
            #expect(texts.allSatisfy { $0.contains("500") && $0.contains("api.example.com/v1/items/7") })
            for text in texts {
                for secret in plant.secrets where text.contains(secret) {
                    Issue.record("\(secret) shown in \(text)")
                }
            }
        }
    }

    /// Answers 500 with every request header value in a table cell, and the request body.
    @Sendable static func echo(_ request: StubRequest) -> StubResponse {
        let cells = request.request.headers.map { "<td>\($0.value)</td>" }.joined()
        return .text("<table>\(cells)</table>", status: 500)
    }
}
