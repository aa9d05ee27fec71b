import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkTests {
    /// The backend served over real HTTP and reached through `URLSessionTransport`.
    @Suite struct BackendLoopbackTests {
        let backend = makePeopleBackend(.drfWithConditionalRequests)  // for conditionalReadAnswers304OverHTTP
        let server: LoopbackServer
        let transport = URLSessionTransport()

        init() throws {
            server = LoopbackServer(backend: backend)
            try server.start()
        }

        private func send(
            _ method: HTTPMethod, _ path: String, json: JSON? = nil, headers: HTTPHeaders = [:], host: String? = nil
        )
            async throws -> HTTPResponse
        {
            let base = host.map { "http://\($0):\(server.port)" } ?? server.baseURL.absoluteString
            var request = HTTPRequest(method: method, url: URL(string: base + path)!, headers: headers)
            if let json {
                request.body = .data(try json.data())
                request.headers["Content-Type"] = "application/json"
            }
            return try await transport.send(request)
        }

        @Test func crudOverHTTP() async throws {
            defer { server.stop() }
            let created = try await send(.post, "/people/", json: ["first_name": "Ada", "last_name": "L"])
            let read = try await send(.get, "/people/1/")
            let patched = try await send(.patch, "/people/1/", json: ["age": 36])
            let deleted = try await send(.delete, "/people/1/")
            let missing = try await send(.get, "/people/1/")

            #expect(created.status == 201)
            #expect(created.json == ["id": 1, "first_name": "Ada", "last_name": "L"])
            #expect(read.headers["ETag"] == created.headers["ETag"])
            #expect(patched.json["age"] == 36)
            #expect(deleted.status == 204)
            #expect(missing.status == 404)
            #expect(backend.recorder.count == 5)
            #expect(server.requests.count == 5)
        }

        @Test func nextLinksFollowTheHostHeader() async throws {
            defer { server.stop() }
            seedPeople(backend, count: 3)

            let numeric = try await send(.get, "/people/?page_size=2")
            let named = try await send(.get, "/people/?page_size=2", host: "localhost")
            let next = try #require(named.json["next"].string.flatMap(URL.init(string:)))
            let second = try await transport.send(HTTPRequest(url: next))

            #expect(numeric.json["next"] == .string("http://127.0.0.1:\(server.port)/people/?page=2&page_size=2"))
            #expect(named.json["next"] == .string("http://localhost:\(server.port)/people/?page=2&page_size=2"))
            #expect((second.json["results"].array ?? []).map(\.["id"]) == [3])
        }

        @Test func conditionalReadAnswers304OverHTTP() async throws {
            defer { server.stop() }
            seedPeople(backend, count: 1)
            let tag = try #require(try await send(.get, "/people/1/").headers["ETag"])

            let again = try await send(.get, "/people/1/", headers: ["If-None-Match": tag])

            #expect(again.status == 304)
            #expect(again.body.isEmpty)
        }

        @Test func injectedDropsAndLostAnswersCloseTheConnection() async throws {
            defer { server.stop() }
            backend.failNext(with: .loseAnswer)
            backend.failNext(with: .dropConnection)
            backend.failNext(1, status: 503, retryAfter: 2)

            await #expect(throws: CRUDError.self) {
                _ = try await send(.post, "/people/", json: ["first_name": "A", "last_name": "B"])
            }
            await #expect(throws: CRUDError.self) {
                _ = try await send(.post, "/people/", json: ["first_name": "C", "last_name": "D"])
            }
            let unavailable = try await send(.get, "/people/")

            #expect(backend.records(in: "people").map(\.["first_name"]) == ["A"])
            #expect(unavailable.status == 503)
            #expect(unavailable.headers["Retry-After"] == "2")
        }
    }
}
