import CRUDKit
import Foundation

/// The collection path `Person` lives under, set once from `--path` before the walk starts.
let personPath = Locked("people")

/// The model the demo walks: compatible with the loopback server and with the Django REST framework interop
/// server (`Tests/Interop/drf`), whose `created_at` is read-only and whose `email` may be empty but not null.
struct Person: CRUDModel, Codable, Sendable {
    static var path: String { personPath.withLock { $0 } }

    var id: Int?
    var firstName: String
    var lastName: String
    var age: Int?
    var email: String?
    var favoriteColor: String?
    var createdAt: Date?

    /// "Ada Lovelace".
    var name: String { "\(firstName) \(lastName)" }
}
