import CRUDKit
import Foundation

/// The Models article's "Where a value's writes go" sample, kept here so it compiles with every change (never
/// called: it talks to real servers; `ValueOriginTests` runs the same calls against two loopback servers).
enum ModelsArticleSamples {
    struct Person: CRUDModel, Codable {
        static let path = "people"
        var id: Int?
        var firstName: String
    }

    struct Post: CRUDModel, Codable {
        static let path = "posts"
        static let parentPath: String? = "people"
        var id: Int?
        var title: String
    }

    static func whereWritesGo(backup: API, ada: Person) async throws {
        let copy = try await Person.using(backup).read(id: 12)  // GET backup /people/12
        try await copy.update()  // PUT backup /people/12
        let hello = try await Post.scoped(to: ada).create(Post(title: "Hello"))  // POST /people/1/posts
        try await hello.delete()  // DELETE /people/1/posts/7
    }
}
