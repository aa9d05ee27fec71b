import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

@Suite struct InMemoryBackendTests {
    let backend = makePeopleBackend()

    @Test func createAssignsIncrementingIDsAndAnswers201WithTheObject() async throws {
        let first = try await call(backend, .post, "/people", json: ["first_name": "Ada", "last_name": "Lovelace"])
        let second = try await call(backend, .post, "/people", json: ["first_name": "Alan", "last_name": "Turing"])

        #expect(first.status == 201)
        #expect(first.json == ["id": 1, "first_name": "Ada", "last_name": "Lovelace"])
        #expect(second.json["id"] == 2)
        #expect(first.mediaType == "application/json")
        #expect(first.headers["Location"] == nil)
        #expect(first.url?.absoluteString == backendBase + "/people")
        #expect(backend.count(in: "people") == 2)
        #expect(backend.records(in: "people").map(\.["last_name"]) == ["Lovelace", "Turing"])
    }

    @Test func createIgnoresAnIDInTheBody() async throws {
        let response = try await call(backend, .post, "/people", json: ["id": 99, "first_name": "A", "last_name": "B"])
        #expect(response.json["id"] == 1)
        #expect(backend.record(in: "people", id: 99) == nil)
    }

    @Test func uuidIDsAreDeterministicStrings() async throws {
        let one = InMemoryBackend()
        let two = InMemoryBackend()
        for backend in [one, two] { backend.register("things", ids: .uuid) }

        let a = try await (call(one, .post, "/things", json: ["n": 1]).json["id"].string ?? "")
        let b = try await (call(two, .post, "/things", json: ["n": 1]).json["id"].string ?? "")
        let c = try await (call(one, .post, "/things", json: ["n": 2]).json["id"].string ?? "")

        #expect(a == b)
        #expect(a != c)
        #expect(UUID(uuidString: a) != nil)
        #expect(a == a.lowercased())
        #expect(Array(a)[14] == "4")
        let read = try await call(one, .get, "/things/\(a)")
        #expect(read.json["n"] == 1)
    }

    @Test func readsOneAndAnswers404ForUnknownIDsAndPaths() async throws {
        seedPeople(backend, count: 2)

        let found = try await call(backend, .get, "/people/2")
        let missing = try await call(backend, .get, "/people/9")
        let unrouted = try await call(backend, .get, "/nothing/here")

        #expect(found.status == 200)
        #expect(found.json["first_name"] == "First2")
        #expect(missing.status == 404)
        #expect(missing.json == ["detail": "Not found."])
        #expect(unrouted.status == 404)
    }

    @Test func putReplacesTheWholeObject() async throws {
        backend.insert(["first_name": "Ada", "last_name": "L", "favorite_color": "green"], into: "people")

        let response = try await call(
            backend, .put, "/people/1", json: ["id": 5, "first_name": "Ada", "last_name": "K"])

        #expect(response.status == 200)
        #expect(response.json == ["id": 1, "first_name": "Ada", "last_name": "K"])
        #expect(backend.record(in: "people", id: 1) == ["id": 1, "first_name": "Ada", "last_name": "K"])
    }

    @Test func patchMergesAndNullClears() async throws {
        backend.insert(
            ["first_name": "Ada", "last_name": "L", "favorite_color": "green", "address": ["city": "X", "zip": "1"]],
            into: "people")

        let response = try await call(
            backend, .patch, "/people/1", json: ["favorite_color": nil, "address": ["zip": nil, "street": "Y"]])

        #expect(response.status == 200)
        #expect(
            response.json == [
                "id": 1, "first_name": "Ada", "last_name": "L", "favorite_color": nil,
                "address": ["city": "X", "street": "Y"],
            ])
        let unchanged = try await call(backend, .patch, "/people/1", json: [:])
        #expect(unchanged.json == response.json)
    }

    @Test func deleteAnswers204AndRemoves() async throws {
        seedPeople(backend, count: 2)

        let response = try await call(backend, .delete, "/people/1")
        let again = try await call(backend, .delete, "/people/1")

        #expect(response.status == 204)
        #expect(response.body.isEmpty)
        #expect(response.headers["Content-Type"] == nil)
        #expect(again.status == 404)
        #expect(backend.count(in: "people") == 1)
    }

    @Test func updateOfUnknownIDIs404AndNeverCreates() async throws {
        let put = try await call(backend, .put, "/people/7", json: ["first_name": "A", "last_name": "B"])
        let patch = try await call(backend, .patch, "/people/7", json: ["first_name": "A"])
        #expect(put.status == 404)
        #expect(patch.status == 404)
        #expect(backend.count(in: "people") == 0)
    }

    @Test func methodsOutsideTheRulesAnswer405WithAllow() async throws {
        let response = try await call(backend, .delete, "/people")
        let options = try await call(backend, .options, "/people/1")

        #expect(response.status == 405)
        #expect(response.json == ["detail": "Method \"DELETE\" not allowed."])
        #expect(response.headers["Allow"] == "GET, POST, HEAD, OPTIONS")
        #expect(options.headers["Allow"] == "GET, PUT, PATCH, DELETE, HEAD, OPTIONS")
    }

    @Test func headAnswersHeadersWithoutBody() async throws {
        seedPeople(backend, count: 1)
        let get = try await call(backend, .get, "/people/1")
        let head = try await call(backend, .head, "/people/1")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.headers["Content-Length"] == String(get.body.count))
        #expect(head.headers["ETag"] == get.headers["ETag"])
    }

    @Test func filtersByEqualityAndComparisons() async throws {
        seedPeople(backend, count: 6)
        let names = { (query: String) async throws -> [String] in
            try await (call(self.backend, .get, "/people?" + query).json.array ?? []).map {
                $0["last_name"].string ?? ""
            }
        }

        #expect(try await names("last_name=Last3") == ["Last3"])
        #expect(try await names("age__gte=5") == ["Last5", "Last6"])
        #expect(try await names("age__lte=2") == ["Last1", "Last2"])
        #expect(try await names("age__gt=4&age__lt=6") == ["Last5"])
        #expect(try await names("age__in=1,3") == ["Last1", "Last3"])
        #expect(try await names("age__ne=1&age__lt=3") == ["Last2"])
        #expect(try await names("first_name__contains=st6") == ["Last6"])
        #expect(try await names("last_name=Nobody").isEmpty)
        #expect(try await names("nickname=x").count == 6)
        #expect(try await names("ordering=age").count == 6)
    }

    @Test func rootKeysWrapObjectsInAndOut() async throws {
        let backend = InMemoryBackend()
        backend.register("people", objectKey: "person", collectionKey: "people")

        let created = try await call(backend, .post, "/people", json: ["person": ["first_name": "Ada"]])
        let patched = try await call(backend, .patch, "/people/1", json: ["person": ["age": 36]])
        let list = try await call(backend, .get, "/people")

        #expect(created.json == ["person": ["id": 1, "first_name": "Ada"]])
        #expect(patched.json == ["person": ["id": 1, "first_name": "Ada", "age": 36]])
        #expect(list.json == ["people": [["id": 1, "first_name": "Ada", "age": 36]]])
        #expect(backend.records(in: "people") == [["id": 1, "first_name": "Ada", "age": 36]])
    }

    @Test func formBodiesAreReadAsStrings() async throws {
        let request = HTTPRequest(
            method: .post, url: URL(string: backendBase + "/people")!,
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: .data(Data("first_name=Ada+B&last_name=L%C3%B8".utf8)))
        let response = try await backend.send(request)
        #expect(response.status == 201)
        #expect(response.json["first_name"] == "Ada B")
        #expect(response.json["last_name"] == "Lø")
    }

    @Test func badBodiesAnswerLikeDRF() async throws {
        let backend = makePeopleBackend(.drf)
        let url = URL(string: backendBase + "/people/")!
        let malformed = try await backend.send(
            HTTPRequest(
                method: .post, url: url, headers: ["Content-Type": "application/json"], body: .data(Data("{x".utf8))))
        let text = try await backend.send(
            HTTPRequest(method: .post, url: url, headers: ["Content-Type": "text/plain"], body: .data(Data("hi".utf8))))
        let array = try await call(backend, .post, "/people/", json: [1])
        let null = try await call(backend, .post, "/people/", json: JSON.null)
        let empty = try await call(backend, .post, "/people/")

        #expect(malformed.status == 400)
        #expect((malformed.json["detail"].string ?? "").hasPrefix("JSON parse error - "))
        #expect(text.status == 415)
        #expect(text.json == ["detail": "Unsupported media type \"text/plain\" in request."])
        #expect(array.json == ["non_field_errors": ["Invalid data. Expected a dictionary, but got list."]])
        #expect(null.json == ["non_field_errors": ["No data provided"]])
        #expect(empty.status == 400)
        #expect(
            empty.json == ["first_name": ["This field is required."], "last_name": ["This field is required."]])
        #expect(backend.count(in: "people") == 0)
    }
}
