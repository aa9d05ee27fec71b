import CRUDKit
import Foundation

/// The collection path `Person` lives under, set once from `--path` before the walk starts.
let personPath = Locked("people")

/// The model the demo walks: compatible with the loopback server and with the Django REST framework interop
/// server (`Tests/Interop/drf`), whose `created_at` is read-only and whose `email` may be empty but not null.
struct Person: CRUDModel, Codable, Sendable {
    static var path: String { personPath.withLock { $0 } }

    var id: PersonID?
    var firstName: String
    var lastName: String
    var age: Int?
    var email: String?
    var favoriteColor: String?
    var createdAt: Date?

    /// "Ada Lovelace".
    var name: String { "\(firstName) \(lastName)" }
}

/// A person's id as the server wrote it: a number (Django, Rails, FastAPI) or a string (Vapor's UUIDs).
enum PersonID: Hashable, Sendable, Codable, CustomStringConvertible {
    case number(Int)
    case text(String)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self = .number(number)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .text(let text): try container.encode(text)
        }
    }

    /// The id as it appears in a path.
    var description: String {
        switch self {
        case .number(let number): String(number)
        case .text(let text): text
        }
    }
}
