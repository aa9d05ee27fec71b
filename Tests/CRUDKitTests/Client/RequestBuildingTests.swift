import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

@Suite struct RequestBuildingTests {
    let transport = StubTransport().on(
        nil, "**", .json(text: #"{"id": 1, "firstName": "Ada", "lastName": "Lovelace"}"#))

    /// The requests the transport received, as sent.
    var requests: [HTTPRequest] { transport.recorder.requests.map(\.request) }

    @Test func defaultHeadersAndQueryAreSentAndRequestValuesWin() async throws {
        let api = API(
            baseURL: testBase, headers: ["Locale": "en-US", "X-Client": "app"], query: ["token": "t1", "v": "2"],
            transport: transport)
        _ = try await api.get("people", query: ["v": "3", "page": "2"], headers: ["x-client": "tests"])
        let sent = try #require(requests.first)
        #expect(sent.url.absoluteString == "https://api.example.com/v1/people?token=t1&page=2&v=3")
        #expect(sent.headers["Locale"] == "en-US")
        #expect(sent.headers["X-Client"] == "tests")
        #expect(sent.headers["Accept"] == "application/json")
        #expect(sent.method == .get)
        #expect(sent.timeout == nil, "an API without a timeout of its own leaves the transport's")
    }

    @Test func jsonBodiesUseTheAPICoding() async throws {
        let snake = API(baseURL: testBase, transport: transport)
        let plain = snake.with { $0.conventions.coding = .plain }
        _ = try await snake.post("people", body: .json(StubPerson(firstName: "Ada", lastName: "Lovelace")))
        _ = try await plain.post("people", body: .json(StubPerson(firstName: "Ada", lastName: "Lovelace")))
        _ = try await plain.post("people", body: .json(["first_name": "Ada", "id": 9_007_199_254_740_993] as JSON))
        let sent = requests
        #expect(sent.allSatisfy { $0.method == .post && $0.headers["Content-Type"] == "application/json" })
        #expect(sent[0].body.data == Data(#"{"first_name":"Ada","last_name":"Lovelace"}"#.utf8))
        #expect(sent[1].body.data == Data(#"{"firstName":"Ada","lastName":"Lovelace"}"#.utf8))
        #expect(sent[2].body.data == Data(#"{"first_name":"Ada","id":9007199254740993}"#.utf8))
        let nonFinite = await crudError {
            try await plain.post("x", body: .json(["n": .number(.double(.nan))] as JSON))
        }
        #expect(nonFinite?.caseName == "invalidRequest")
    }

    @Test func formBodiesArePercentEncoded() async throws {
        let api = API(baseURL: testBase, transport: transport)
        _ = try await api.post("login", body: .form(["user": "a+b@x", "password": "p&q=r s"]))
        let sent = try #require(requests.first)
        #expect(sent.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(sent.body.data == Data("user=a%2Bb%40x&password=p%26q%3Dr%20s".utf8))
        _ = try await api.post(
            "search", body: .form(["tags": ["a", "b"], "owner": ["name": "Ada"]], style: .repeatedKeys))
        #expect(requests[1].body.data == Data("tags=a&tags=b&owner%5Bname%5D=Ada".utf8))
    }

    @Test func multipartBodiesCarryTheirBoundary() async throws {
        let api = API(baseURL: testBase, transport: transport)
        var form = MultipartForm(boundary: "b0undary")
        form.parts.append(.init(name: "title", content: .data(Data("Ada".utf8))))
        _ = try await api.post("uploads", body: .multipart(form))
        let sent = try #require(requests.first)
        #expect(sent.headers["Content-Type"] == "multipart/form-data; boundary=b0undary")
        let text = String(decoding: try #require(sent.body.data), as: UTF8.self)
        #expect(text.contains("--b0undary\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nAda\r\n"))
    }

    @Test func rawBodiesKeepAGivenContentTypeAndHeadersWin() async throws {
        let api = API(baseURL: testBase, transport: transport)
        _ = try await api.put("avatar", body: .data(Data([1, 2, 3]), contentType: "image/png"))
        _ = try await api.put(
            "avatar", body: .data(Data([1]), contentType: "image/png"), headers: ["Content-Type": "image/webp"])
        #expect(requests[0].headers["Content-Type"] == "image/png")
        #expect(requests[0].body == .data(Data([1, 2, 3])))
        #expect(requests[1].headers["Content-Type"] == "image/webp")
    }

    @Test func headerValuesWithLineBreaksAreRefusedBeforeSending() async {
        let api = API(baseURL: testBase, transport: transport)
        let injected = await crudError { try await api.get("people", headers: ["X-Name": "a\r\nX-Admin: 1"]) }
        #expect(injected?.caseName == "invalidRequest")
        let badName = await crudError { try await api.get("people", headers: ["Bad Name": "x"]) }
        #expect(badName?.caseName == "invalidRequest")
        let defaults = API(baseURL: testBase, headers: ["X-A": "line\nbreak"], transport: transport)
        #expect((await crudError { try await defaults.get("people") })?.caseName == "invalidRequest")
        let adapted = API(baseURL: testBase, transport: transport).with {
            $0.middleware.insert(
                .adapt { request in
                    var request = request
                    request.headers["Authorization"] = "Bearer x\r\n"
                    return request
                }, after: .retry)
        }
        #expect((await crudError { try await adapted.get("people") })?.caseName == "invalidRequest")
        #expect(transport.recorder.count == 0)
    }

    @Test func postsGetAnIdempotencyKeyWhenConfigured() async throws {
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: transport,
                middleware: [
                    IdempotencyKeyMiddleware(), RetryMiddleware(), ValidationMiddleware(), CoalescingMiddleware(),
                ]))
        _ = try await api.post("people", body: .json(StubPerson(firstName: "A", lastName: "B")))
        _ = try await api.post("people", body: .json(StubPerson(firstName: "A", lastName: "B")))
        _ = try await api.put("people/1", body: .json(StubPerson(firstName: "A", lastName: "B")))
        _ = try await api.post("people", headers: ["Idempotency-Key": "mine"])
        let keys = requests.map { $0.headers["Idempotency-Key"] }
        let first = try #require(keys[0])
        let second = try #require(keys[1])
        #expect(UUID(uuidString: first) != nil)
        #expect(first != second)
        #expect(keys[2] == nil)
        #expect(keys[3] == "mine")
    }

    @Test func absoluteURLsBypassTheBaseURL() async throws {
        let api = API(baseURL: testBase, query: ["key": "k"], transport: transport)
        let next = URL(string: "https://other.example.org/people?page=2")!
        let person: StubPerson = try await api.get(next)
        #expect(person.firstName == "Ada")
        #expect(requests.first?.url.absoluteString == "https://other.example.org/people?page=2&key=k")
    }

    @Test func segmentEndpointsEncodeIds() async throws {
        let api = API(
            baseURL: testBase, conventions: .standard.with { $0.trailingSlash = .always }, transport: transport)
        _ = try await api.delete(Endpoint.segments(["people", "../admin"]))
        #expect(requests.first?.url.absoluteString == "https://api.example.com/v1/people/..%2Fadmin/")
        #expect(requests.first?.method == .delete)
        #expect(
            try api.url(for: Endpoint.segments(["people", "a/b"])).absoluteString
                == "https://api.example.com/v1/people/a%2Fb/")
    }

    @Test func perRequestTimeoutWins() async throws {
        let api = API(baseURL: testBase, transport: transport, timeout: 5)
        _ = try await api.send(Request(.get, "people", timeout: 1.5, decoder: .okay))
        _ = try await api.get("people")
        #expect(requests.map(\.timeout) == [1.5, 5])
    }

    /// The idle time: the request's own, then the API's, then (`nil` on the request) the transport's. The total
    /// deadline is the API's alone (300 s by default), stamped through `Request` and a built `HTTPRequest` alike.
    @Test func anAPIWithoutAnIdleTimeLeavesItToTheTransportAndStampsItsDeadline() async throws {
        // Without the coalescing stage, which sends a shared read with no deadline (each caller waits with its own).
        let api = API(baseURL: testBase, transport: transport, middleware: [RetryMiddleware(), ValidationMiddleware()])
        #expect(api.configuration.timeout == nil)
        #expect(api.configuration.deadline == 300)
        _ = try await api.get("people")
        _ = try await api.send(HTTPRequest(url: testBase.appendingPathComponent("people")))
        _ = try await api.with { $0.timeout = 7 }.send(HTTPRequest(url: testBase.appendingPathComponent("people")))
        #expect(requests.map(\.timeout) == [nil, nil, 7])
        #expect(requests.map(\.deadline) == [300, 300, 300])
    }

    @Test func withMakesAChangedCopy() {
        let api = API(baseURL: testBase, headers: ["A": "1"])
        let changed = api.with { $0.headers["B"] = "2" }
        #expect(api.configuration.headers == ["A": "1"])
        #expect(changed.configuration.headers == ["A": "1", "B": "2"])
        #expect(changed.configuration.baseURL == testBase)
    }
}
