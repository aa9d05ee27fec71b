import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// An envelope set API-wide must not break a list that arrives as a plain array, such as a nested collection
/// (issue 15, item 10: `expected a value at items`).
@Suite struct PlainNestedListTests {
    struct Person: CRUDModel, Codable, Hashable {
        static let path = "people"
        var id: Int?
        var name: String
    }

    struct Post: CRUDModel, Codable, Hashable {
        static let path = "posts"
        var id: Int?
        var title: String
    }

    private static let base = URL(string: "https://api.example.com")!

    private static func api(_ transport: some Transport) -> API {
        var conventions = APIConventions.standard
        conventions.pagination = .envelope(items: "items", next: "next", total: "total")
        return API(baseURL: base, conventions: conventions, transport: transport)
    }

    @Test func aPlainArrayIsReadWhateverTheEnvelope() async throws {
        let server = StubTransport()
            .on(.get, "people", .json(["items": [["id": 1, "name": "Ada"]], "next": nil, "total": 1]))
            .on(.get, "people/1/posts", .json([["id": 5, "title": "Hi"], ["id": 6, "title": "Again"]]))
        let api = Self.api(server)
        let ada = Person(id: 1, name: "Ada")

        let people = try await Person.using(api).list()
        let page = try await Post.scoped(to: ada, api: api).page()
        var all: [Post] = []
        for try await post in Post.scoped(to: ada, api: api).all() { all.append(post) }

        #expect(people == [ada])
        #expect(page.items.map(\.title) == ["Hi", "Again"])
        #expect(page.next == nil)
        #expect(all.map(\.id) == [5, 6])
    }

    @Test func aPlainArrayFollowsItsLinkHeader() async throws {
        let next = #"<https://api.example.com/people/1/posts?page=2>; rel="next""#
        let server = StubTransport()
            .on(
                .get, "people/1/posts",
                sequence: [
                    .json([["id": 5, "title": "Hi"]], headers: ["Link": next]),
                    .json([["id": 6, "title": "Again"]]),
                ])
        var all: [Post] = []
        for try await post in Post.scoped(to: Person(id: 1, name: "Ada"), api: Self.api(server)).all() {
            all.append(post)
        }
        #expect(all.map(\.id) == [5, 6])
        #expect(server.recorder.last?.query["page"] == "2")
    }
}
