import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

@Suite struct InMemoryBackendStyleTests {
    @Test func nestedCollectionsAreScopedByParent() async throws {
        let backend = makePeopleBackend()
        seedPeople(backend, count: 2)

        let post = try await call(backend, .post, "/people/2/posts", json: ["title": "Hello", "person": 1])
        _ = try await call(backend, .post, "/people/1/posts", json: ["title": "Other"])
        let underOther = try await call(backend, .get, "/people/1/posts/1")
        let underOwner = try await call(backend, .get, "/people/2/posts/1")
        let unknownParent = try await call(backend, .get, "/people/9/posts")
        let createUnderUnknown = try await call(backend, .post, "/people/9/posts", json: ["title": "x"])

        #expect(post.status == 201)
        #expect(post.json == ["id": 1, "person": 2, "title": "Hello"])
        #expect(underOther.status == 404)
        #expect(underOwner.json["title"] == "Hello")
        #expect(unknownParent.status == 404)
        #expect(createUnderUnknown.status == 404)
        #expect(backend.records(in: "people/2/posts").map(\.["title"]) == ["Hello"])
        #expect(backend.records(in: "people/1/posts").map(\.["id"]) == [2])
    }

    @Test func deletingAParentDeletesItsChildren() async throws {
        let backend = makePeopleBackend()
        seedPeople(backend, count: 1)
        _ = try await call(backend, .post, "/people/1/posts", json: ["title": "Hello"])

        _ = try await call(backend, .delete, "/people/1")

        #expect(backend.count(in: "people/1/posts") == 0)
        #expect(try await call(backend, .get, "/people/1/posts").status == 404)
    }

    @Test func drfSlashRuleRedirectsWithoutWriting() async throws {
        let backend = makePeopleBackend(.drf)
        seedPeople(backend, count: 1)

        let delete = try await call(backend, .delete, "/people/1")
        let list = try await call(backend, .get, "/people?page=2&x=%20")
        let post = try await call(backend, .post, "/people", json: ["first_name": "A", "last_name": "B"])
        let slashed = try await call(backend, .get, "/people/1/")

        #expect(delete.status == 301)
        #expect(delete.headers["Location"] == "/v1/people/1/")
        #expect(delete.body.isEmpty)
        #expect(list.headers["Location"] == "/v1/people/?page=2&x=%20")
        #expect(post.status == 301)
        #expect(backend.count(in: "people") == 1)
        #expect(slashed.status == 200)
    }

    @Test func noSlashRuleAnswers404ForASlashAndEitherAcceptsBoth() async throws {
        let plain = makePeopleBackend()
        seedPeople(plain, count: 1)
        var style = InMemoryBackend.Style()
        style.trailingSlash = .either
        let lenient = makePeopleBackend(style)
        seedPeople(lenient, count: 1)

        #expect(try await call(plain, .get, "/people/1/").status == 404)
        #expect(try await call(plain, .get, "/people/1").status == 200)
        #expect(try await call(lenient, .get, "/people/1/").status == 200)
        #expect(try await call(lenient, .get, "/people/1").status == 200)
    }

    @Test func createCanAnswerWithLocationOnlyAndUpdatesWith204() async throws {
        var style = InMemoryBackend.Style()
        style.createAnswer = .locationOnly
        style.updateAnswer = .noContent
        let backend = makePeopleBackend(style)

        let created = try await call(backend, .post, "/people", json: ["first_name": "Ada", "last_name": "L"])
        let updated = try await call(backend, .patch, "/people/1", json: ["age": 36])

        #expect(created.status == 201)
        #expect(created.body.isEmpty)
        #expect(created.headers["Location"] == backendBase + "/people/1")
        #expect(created.headers["ETag"] != nil)
        #expect(updated.status == 204)
        #expect(updated.body.isEmpty)
        #expect(updated.headers["ETag"] != created.headers["ETag"])
        #expect(backend.record(in: "people", id: 1)?["age"] == 36)
    }

    @Test func railsPresetSendsLocationWithTheObject() async throws {
        let backend = makePeopleBackend(.rails)
        let created = try await call(backend, .post, "/people?x=1", json: ["first_name": "Ada", "last_name": "L"])
        #expect(created.json["id"] == 1)
        #expect(created.headers["Location"] == backendBase + "/people/1")
    }

    // MARK: - Error shapes

    private static let invalid: JSON = ["first_name": "Same", "last_name": "Same", "age": -1]

    private func failure(_ shape: InMemoryBackend.ErrorShape) async throws -> HTTPResponse {
        var style = InMemoryBackend.Style()
        style.errors = shape
        let backend = makePeopleBackend(style)
        let response = try await call(backend, .post, "/people", json: Self.invalid)
        #expect(backend.count(in: "people") == 0)
        return response
    }

    @Test func drfErrors() async throws {
        let response = try await failure(.drf)
        #expect(response.status == 400)
        #expect(
            response.json == [
                "age": ["Ensure this value is greater than or equal to 0."],
                "non_field_errors": ["first_name and last_name must differ."],
            ])
    }

    @Test func railsErrors() async throws {
        let response = try await failure(.rails)
        #expect(response.status == 422)
        #expect(
            response.json == [
                "errors": [
                    "age": ["Ensure this value is greater than or equal to 0."],
                    "base": ["first_name and last_name must differ."],
                ]
            ])
    }

    @Test func fastAPIErrors() async throws {
        let response = try await failure(.fastAPI)
        #expect(response.status == 422)
        #expect(
            response.json == [
                "detail": [
                    [
                        "type": "value_error", "loc": ["body", "age"],
                        "msg": "Ensure this value is greater than or equal to 0.",
                    ],
                    ["type": "value_error", "loc": ["body"], "msg": "first_name and last_name must differ."],
                ]
            ])
    }

    @Test func jsonAPIErrors() async throws {
        let response = try await failure(.jsonAPI)
        #expect(response.status == 422)
        #expect(response.mediaType == "application/vnd.api+json")
        let errors = response.json["errors"].array ?? []
        #expect(errors.map(\.[path: "source.pointer"]) == ["/data/attributes/age", "/data"])
        #expect(errors.first?["detail"] == "Ensure this value is greater than or equal to 0.")
        #expect(errors.first?["status"] == "422")
    }

    @Test func problemDetailsErrors() async throws {
        let response = try await failure(.problemDetails)
        #expect(response.status == 422)
        #expect(response.mediaType == "application/problem+json")
        #expect(response.json["status"] == 422)
        #expect(
            response.json["errors"][0] == [
                "detail": "Ensure this value is greater than or equal to 0.", "pointer": "#/age",
            ])
        #expect(
            response.json["invalid-params"] == [
                ["name": "age", "reason": "Ensure this value is greater than or equal to 0."],
                ["name": "", "reason": "first_name and last_name must differ."],
            ])
    }

    @Test func validatorSeesTheMergedObjectOnPatch() async throws {
        let backend = makePeopleBackend(.drf)
        backend.insert(["first_name": "Ada", "last_name": "Lovelace"], into: "people")

        let response = try await call(backend, .patch, "/people/1/", json: ["first_name": "Lovelace"])

        #expect(response.status == 400)
        #expect(response.json == ["non_field_errors": ["first_name and last_name must differ."]])
        #expect(backend.record(in: "people", id: 1)?["first_name"] == "Ada")
    }

    @Test func customActionsAnswerBeforeCollections() async throws {
        let backend = makePeopleBackend()
        seedPeople(backend, count: 1)
        backend.on(.post, "people/:id/activate") { request in
            .json(["activated": .string(request.parameters["id"] ?? "")])
        }

        let response = try await call(backend, .post, "/people/1/activate")
        let plain = try await call(backend, .get, "/people/1")

        #expect(response.json == ["activated": "1"])
        #expect(plain.status == 200)
    }
}
