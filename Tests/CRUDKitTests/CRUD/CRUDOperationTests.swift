import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// Every row of the operations table, in-process, with both the `async` and the `Future` overloads.
@Suite struct CRUDOperationTests {
    let server = InMemoryBackend.people()
    let api: API

    init() {
        api = server.api()
        server.seed(3)
    }

    @Test func readByIDAndByInstanceGiveNewValues() async throws {
        try await API.withShared(api) {
            let third = try await Member.read(id: 3)
            #expect(third.lastName == "3")
            var stale = third
            stale.lastName = "stale"
            let fresh = try await stale.read()
            #expect(fresh.lastName == "3")
            #expect(stale.lastName == "stale")  // the receiver is never mutated
            let viaFuture = try await Member.read(id: 2).value
            #expect(viaFuture.id == 2)
        }
        #expect(server.log == ["GET /v1/people/3", "GET /v1/people/3", "GET /v1/people/2"])
    }

    @Test func createPostsAttributesAndAnswersTheServersCopy() async throws {
        let draft = Member(firstName: "Ada", lastName: "Lovelace", age: 36)
        let made = try await Member.using(api).create(draft)
        #expect(made.id == 4)
        #expect(draft.id == nil)
        #expect(server.log.last == #"POST /v1/people {"first_name":"Ada","last_name":"Lovelace","age":36}"#)
    }

    @Test func updatePutsEveryAttribute() async throws {
        var member = try await Member.using(api).read(id: 1)
        member.favoriteColor = "green"
        let saved = try await Member.using(api).update(member)
        #expect(saved.favoriteColor == "green")
        #expect(
            server.log.last
                == #"PUT /v1/people/1 {"id":1,"first_name":"Person","last_name":"1","age":null,"favorite_color":"green","#
                + #""address":null}"#)  // a PUT replaces the whole value: nil optionals are sent as null (issue 15)
    }

    @Test func patchSendsOnlyTheDifferenceWithNilAsNullAndNestedMembers() async throws {
        let scope = Member.using(api)
        var original = try await scope.read(id: 1)
        original.favoriteColor = "blue"
        original.address = .init(city: "London", zip: "N1")
        original = try await scope.update(original)
        var edited = original
        edited.favoriteColor = nil
        edited.address?.city = "Paris"
        let saved = try await scope.update(edited, from: original)
        // The keys in the model's order (a nil optional is now diffed as the null it encodes to).
        #expect(server.log.last == #"PATCH /v1/people/1 {"favorite_color":null,"address":{"city":"Paris"}}"#)
        #expect(saved.favoriteColor == nil)
        #expect(saved.address == .init(city: "Paris", zip: "N1"))
        #expect(try scope.patch(for: edited, from: original) == ["favorite_color": nil, "address": ["city": "Paris"]])
    }

    @Test func patchWithNothingChangedSendsNothing() async throws {
        let member = try await Member.using(api).read(id: 2)
        let before = server.log.count
        let same = try await Member.using(api).update(member, from: member)
        #expect(same == member)
        #expect(server.log.count == before)
    }

    @Test func deleteAnswersOkayAndLeavesA404() async throws {
        try await API.withShared(api) {
            let member = try await Member.read(id: 1)
            let okay = try await member.delete()
            #expect(okay == Okay())
            try await Member.delete(id: 2)
            let error = await crudError { try await Member.read(id: 1) }
            #expect(error?.isNotFound == true)
            #expect(error?.serverMessage == "Not found.")
        }
        #expect(server.log.contains("DELETE /v1/people/1"))
        #expect(server.log.contains("DELETE /v1/people/2"))
    }

    @Test func operationsThatNeedAnIdFailBeforeSending() async throws {
        let draft = Member(firstName: "No", lastName: "Id")
        let scope = Member.using(api)
        for error in [
            await crudError { try await API.withShared(api) { try await draft.read() } },
            await crudError { try await scope.update(draft) },
            await crudError { try await scope.update(draft, from: draft) },
            await crudError { try await API.withShared(api) { try await draft.delete() } },
            await crudError { try await Note.scoped(to: draft, api: api).list() },
        ] {
            #expect(error?.caseName == "invalidRequest")
        }
        #expect(server.log.isEmpty)
    }

    @Test func idsStayOneSegment() async throws {
        let stubs = StubTransport().on(nil, "**", .json(text: #"{"detail": "Not found."}"#, status: 404))
        let api = API(baseURL: testBase, transport: stubs)
        for id in ["../admin", "a/b", "?x=1", "..", "ü #"] {
            _ = await crudError { try await Slug.using(api).read(id: id) }
        }
        #expect(
            stubs.recorder.requests.map(\.request.url.absoluteString) == [
                "https://api.example.com/v1/slugs/..%2Fadmin", "https://api.example.com/v1/slugs/a%2Fb",
                "https://api.example.com/v1/slugs/%3Fx%3D1", "https://api.example.com/v1/slugs/%2E%2E",
                "https://api.example.com/v1/slugs/%C3%BC%20%23",
            ])
    }

    @Test func futureOverloadsOfEveryRow() async throws {
        let scope = Member.using(api)
        // A write's Future overload is unavailable in async code (noasync): each is made in a synchronous closure.
        let made = try await { scope.create(Member(firstName: "F", lastName: "Uture")) }().value
        let read = try await scope.read(id: try #require(made.id)).value
        var changed = read
        changed.age = 7
        let put = try await { [changed] in scope.update(changed) }().value
        let patched = try await { scope.update(put, from: read) }().value
        let listed = try await scope.list().value
        let page = try await scope.page().value
        let okay = try await { [patched] in scope.delete(id: patched.id ?? 0) }().value
        #expect(put.age == 7 && patched.age == 7)
        #expect(listed.count == 2 && page.total == 4)
        #expect(okay == Okay())
    }

    @Test func bodylessWritesAreReadBack() async throws {
        let server = InMemoryBackend.people(createAnswer: .locationOnly, updateAnswer: .noContent)
        let scope = Member.using(server.api())
        let made = try await scope.create(Member(firstName: "Ada", lastName: "L"))
        #expect(made.id == 1)
        var changed = made
        changed.age = 40
        let saved = try await scope.update(changed)
        #expect(saved.age == 40)
        #expect(
            server.log.map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == [
                "POST /v1/people", "GET /v1/people/1", "PUT /v1/people/1", "GET /v1/people/1",
            ])
    }
}

/// A model with string ids and a path override per operation.
private struct Slug: Readable, Updatable, Codable {
    static let path = "slugs"
    static func path(for operation: CRUDOperation) -> String { operation == .update ? "admin/slugs" : path }
    var id: String?
}
