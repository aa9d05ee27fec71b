import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

extension NetworkTests {
    /// The whole model cycle through the real `URLSessionTransport` against a loopback server that answers like
    /// Django REST framework (trailing slashes, envelope pagination, 201/204, field errors).
    @Suite struct CRUDLoopbackTests {
        @Test func fullCycleWithTheDjangoConventions() async throws {
            let rest = InMemoryBackend.people(trailingSlash: .always)
            rest.seed(5)
            let server = LoopbackServer(backend: rest)
            try server.start()
            defer { server.stop() }
            let api = API(
                baseURL: server.baseURL.appendingPathComponent("v1"), conventions: .djangoREST, token: "k",
                transport: URLSessionTransport())
            try await API.withShared(api) {
                let made = try await Member(firstName: "Ada", lastName: "Lovelace", age: 36).create()
                let id = try #require(made.id)
                #expect(try await Member.read(id: id) == made)
                var edited = made
                edited.favoriteColor = "green"
                let put = try await edited.update()
                edited.age = nil
                let patched = try await edited.update(from: put)
                #expect(patched.age == nil && patched.favoriteColor == "green")
                #expect(try await Member.list().count == 2)
                let page = try await Member.page()
                #expect(page.total == 6 && page.next != nil)
                #expect(try await Member.all().collect().count == 6)
                let note = try await Note.scoped(to: made).create(Note(title: "Hi"))
                #expect(try await Note.scoped(to: made).list() == [note])
                let active: Member = try await made.action(.post, "activate", as: .model())
                #expect(active.id == id)
                let invalid = await crudError { try await Member(firstName: "A", lastName: "B", age: -1).create() }
                #expect(invalid?.fieldErrors["age"]?.isEmpty == false)
                var tagged = try await Member.readTagged(id: id)
                tagged.lastName = "King"
                let stale = tagged
                tagged = try await tagged.updateChanges()
                #expect(await crudError { try await stale.delete() }?.caseName == "conflict")
                try await made.delete()
                #expect(await crudError { try await made.read() }?.isNotFound == true)
            }
            let targets = server.requests.map { "\($0.method) \($0.target)" }
            #expect(targets.allSatisfy { $0.split(separator: "?")[0].hasSuffix("/") })
            #expect(targets.contains("GET /v1/people/?page=2"))
            #expect(server.requests.allSatisfy { $0.headers["Authorization"] == "Token k" })
        }

        @Test func encodedIdsReachTheServerAsOneSegment() async throws {
            let server = LoopbackServer { _ in
                HTTPResponse(status: 404, headers: ["Content-Type": "application/json"], body: Data("{}".utf8))
            }
            try server.start()
            defer { server.stop() }
            let api = API(baseURL: server.baseURL, transport: URLSessionTransport())
            for id in ["../admin", "a/b", "?x=1"] {
                _ = await crudError { try await Slugged.using(api).read(id: id) }
            }
            #expect(
                server.requests.map(\.target) == [
                    "/slugs/..%2Fadmin", "/slugs/a%2Fb", "/slugs/%3Fx%3D1",
                ])
        }
    }
}

private struct Slugged: Readable, Codable {
    static let path = "slugs"
    var id: String?
}
