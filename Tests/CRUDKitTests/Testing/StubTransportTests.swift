import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

@Suite struct StubTransportTests {
    let stubs = StubTransport()

    @Test func answersCannedResponsesByMethodAndPattern() async throws {
        stubs.on(.get, "people/:id", .json(["id": 12, "first_name": "Ada"]))
        stubs.on(.delete, "people/:id", .status(204))
        stubs.on(nil, "/v1/health", .text("ok"))

        let read = try await call(stubs, .get, "/people/12/")
        let deleted = try await call(stubs, .delete, "/people/12")
        let health = try await call(stubs, .head, "/health")

        #expect(read.status == 200)
        #expect(read.json == ["id": 12, "first_name": "Ada"])
        #expect(read.mediaType == "application/json")
        #expect(read.url?.absoluteString == backendBase + "/people/12/")
        #expect(deleted.status == 204)
        #expect(String(decoding: health.body, as: UTF8.self) == "ok")
    }

    @Test func anchoredPatternsMatchTheWholePath() async throws {
        stubs.on(.get, "/people", .json([]))
        #expect(try await call(stubs, .get, "/people").status == 404)
        #expect(try await stubs.send(HTTPRequest(url: URL(string: "https://x.test/people")!)).status == 200)
    }

    @Test func wildcardsAndCaptures() async throws {
        stubs.on(.get, "files/**", .text("file"))
        stubs.on(.get, "people/*/posts/{post}") { request in
            .json(["post": .string(request.parameters["post"] ?? "")])
        }

        let deep = try await call(stubs, .get, "/files/a/b/c.txt")
        let post = try await call(stubs, .get, "/people/3/posts/a%2Fb")

        #expect(String(decoding: deep.body, as: UTF8.self) == "file")
        #expect(post.json == ["post": "a/b"])
    }

    @Test func laterRoutesWinAndSequencesAdvance() async throws {
        stubs.on(.get, "people", .json(["old"]))
        stubs.on(.get, "people", sequence: [.status(503), .json(["new"])])

        let statuses = [
            try await call(stubs, .get, "/people").status, try await call(stubs, .get, "/people").status,
            try await call(stubs, .get, "/people").status,
        ]
        #expect(statuses == [503, 200, 200])
        #expect(try await call(stubs, .get, "/people").json == ["new"])
    }

    @Test func unmatchedRequestsAnswer404OrFail() async throws {
        let response = try await call(stubs, .get, "/people?x=1")
        #expect(response.status == 404)
        #expect(response.json == ["detail": "StubTransport: no route for GET /v1/people?x=1"])

        let strict = StubTransport(unmatched: .fail)
        do {
            _ = try await call(strict, .post, "/people")
            Issue.record("expected a failure")
        } catch let CRUDError.invalidRequest(reason) {
            #expect(reason == "StubTransport: no route for POST /v1/people")
        }
    }

    @Test func failuresAndClosureErrorsAreThrown() async throws {
        stubs.on(.get, "down", .failure(.timedOut(.idle(1))))
        stubs.on(.get, "broken") { _ in throw URLError(.badServerResponse) }

        await #expect(throws: CRUDError.self) { _ = try await call(stubs, .get, "/down") }
        do {
            _ = try await call(stubs, .get, "/broken")
            Issue.record("expected a failure")
        } catch let CRUDError.transport(failure) {
            #expect((failure.underlying as? URLError)?.code == .badServerResponse)
        }
        #expect(stubs.recorder.count == 2)
    }

    @Test func closuresSeeTheRequest() async throws {
        stubs.on(.post, "people") { request in
            var person = (request.json.object ?? JSON.Object())
            person["id"] = 7
            return .json(.object(person), status: 201, headers: ["Location": "/people/7"])
        }
        let response = try await call(stubs, .post, "/people", json: ["first_name": "Ada"])
        #expect(response.status == 201)
        #expect(response.json == ["first_name": "Ada", "id": 7])
        #expect(response.headers["Location"] == "/people/7")
        #expect(response.mediaType == "application/json")
    }
}

@Suite struct RequestRecorderTests {
    @Test func recordsEverythingATestChecks() async throws {
        let stubs = StubTransport()
        stubs.on(nil, "**", .status(200))
        var request = HTTPRequest(
            method: .patch, url: URL(string: backendBase + "/people/12/?fields=a&tag=x&tag=y%20z")!,
            headers: ["Authorization": "Token abc", "Content-Type": "application/json"])
        request.body = .data(Data(#"{"first_name":"Ada","birth_date":"1815-12-10T00:00:00Z"}"#.utf8))

        _ = try await stubs.send(request)
        _ = try await call(stubs, .get, "/people")

        let recorder = stubs.recorder
        let sent = try #require(recorder.first)
        #expect(sent.method == .patch)
        #expect(sent.path == "/v1/people/12/")
        #expect(sent.pathSegments == ["v1", "people", "12"])
        #expect(sent.query == ["fields": "a", "tag": "x"])
        #expect(sent.queryValues("tag") == ["x", "y z"])
        #expect(sent.header("authorization") == "Token abc")
        #expect(sent.json["first_name"] == "Ada")
        #expect(sent.matches(.patch, "people/:id"))
        #expect(!sent.matches(.put, "people/:id"))
        struct Person: Decodable, Equatable {
            var firstName: String
            var birthDate: Date
        }
        let person = try sent.decode(Person.self)
        #expect(person.firstName == "Ada")
        #expect(person.birthDate == Date(timeIntervalSince1970: -4_861_728_000))
        #expect(recorder.count == 2)
        #expect(recorder.count(.get, "people") == 1)
        #expect(recorder.requests(nil, "people/*").map(\.index) == [0])
        #expect(recorder.summary == ["PATCH /v1/people/12/?fields=a&tag=x&tag=y%20z", "GET /v1/people"])
        recorder.removeAll()
        #expect(recorder.last == nil)
    }

    @Test func recordingTransportWrapsAnother() async throws {
        let backend = makePeopleBackend()
        let recording = RecordingTransport(backend)
        _ = try await call(recording, .post, "/people", json: ["first_name": "A", "last_name": "B"])
        #expect(recording.recorder.last?.text == #"{"first_name":"A","last_name":"B"}"#)
        #expect(backend.recorder.count == 1)
    }
}
