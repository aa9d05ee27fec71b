import CRUDKit
import Foundation

/// `/people/{id}/posts/`: always reached through `Post.scoped(to: person)`.
struct Post: CRUDModel, Codable, Hashable {
    static let path = "posts"

    var id: Int?
    /// The owner's id; read-only on the server (taken from the URL).
    var person: Int?
    var title: String
    var body = ""
}
