import CRUDKit
import Foundation
import Testing

/// `/people/{id}/posts/` through `Post.scoped(to: person)`: all five operations under the parent.
@Suite("DRF interop: nested posts", DRFServer.enabled)
struct DRFNestedPostTests {
    @Test func createListReadUpdateDeleteUnderAPerson() async throws {
        try await withDRF { drf in
            let ada = try await drf.makePerson("Ada")
            let adaID = try #require(ada.id)
            let posts = Post.scoped(to: ada)

            let hello: Post = try await posts.create(Post(title: "Hello", body: "World"))
            let postID = try #require(hello.id)
            #expect(hello.person == adaID)
            #expect(hello.title == "Hello")
            let second: Post = try await posts.create(Post(title: "Second"))
            #expect(second.body == "")

            let listed: [Post] = try await posts.list()
            #expect(listed.map(\.id) == [hello.id, second.id])
            let page: Page<Post> = try await posts.page()
            #expect(page.total == 2)

            let read: Post = try await posts.read(id: postID)
            #expect(read == hello)

            var renamed = hello
            renamed.title = "Hello again"
            let replaced: Post = try await posts.update(renamed)
            #expect(replaced.title == "Hello again")
            var shorter = replaced
            shorter.body = "Short"
            let patched: Post = try await posts.update(shorter, from: replaced)
            #expect(patched.body == "Short")
            #expect(patched.title == "Hello again")

            let okay: Okay = try await posts.delete(id: try #require(patched.id))
            #expect(okay == Okay())
            let gone = await #expect(throws: CRUDError.self) { () async throws -> Post in
                try await posts.read(id: postID)
            }
            #expect(gone?.isNotFound == true)
            #expect(gone?.serverMessage == "No Post matches the given query.")
            let remaining: [Post] = try await posts.list()
            #expect(remaining.map(\.id) == [second.id])

            let paths = Set(drf.wire.exchanges.map(\.path))
            #expect(paths.contains("/people/\(adaID)/posts/"))
            #expect(paths.contains("/people/\(adaID)/posts/\(postID)/"))
            #expect(drf.wire.exchanges(.post).filter { $0.path.contains("/posts/") }.allSatisfy { $0.status == 201 })
        }
    }

    @Test func aPostIsNotReachableUnderAnotherPerson() async throws {
        try await withDRF { drf in
            let ada = try await drf.makePerson("Ada")
            let bob = try await drf.makePerson("Bob")
            let post: Post = try await Post.scoped(to: ada).create(Post(title: "Mine"))
            let error = await #expect(throws: CRUDError.self) { () async throws -> Post in
                try await Post.scoped(to: Person.self, id: try #require(bob.id)).read(id: try #require(post.id))
            }
            #expect(error?.isNotFound == true)
        }
    }
}

extension DRFNestedPostTests {
    /// A model with a `title` field: DRF's `{"title": ["…"]}` is a field error, not a problem document's title.
    @Test func aPostsTitleErrorIsAFieldError() async throws {
        try await withDRF { drf in
            let ada = try await drf.makePerson("Ada")
            let error = await #expect(throws: CRUDError.self) { () async throws -> Post in
                try await Post.scoped(to: ada).create(Post(title: ""))
            }
            let failure = try #require(error)
            #expect(failure.status == 400)
            #expect(failure.fieldErrors == ["title": ["This field may not be blank."]])
            #expect(drf.api.serverErrors(in: failure)?.fieldErrors == ["title": ["This field may not be blank."]])
        }
    }
}
