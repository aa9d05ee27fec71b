import CRUDKit
import Foundation

// Shared by the type-check fixtures of `.ci/typecheck.sh` (these files are not part of any target).

struct Person: CRUDModel, Codable {
    static let path = "people"
    var id: Int?
    var firstName: String
    var lastName: String
    var age: Int?
}

struct Post: CRUDModel, Codable {
    static let path = "posts"
    var id: Int?
    var title: String
}
