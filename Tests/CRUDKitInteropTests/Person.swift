import CRUDKit
import Foundation

/// `/people/` of the DRF server, mapped through `Codable` with the API's default coding (snake_case keys on the
/// wire, ISO-8601 dates with or without fractional seconds).
struct Person: CRUDModel, Codable, Hashable {
    static let path = "people"

    var id: Int?
    var firstName: String
    var lastName: String
    var age: Int?
    /// DRF accepts `""` but refuses `null` here, so it is not optional.
    var email = ""
    var favoriteColor: String?
    /// Read-only on the server: ignored when sent.
    var createdAt: Date?
}
