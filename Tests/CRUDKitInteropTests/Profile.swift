import CRUDKit
import Foundation

/// `/profiles/` of the DRF server: a name, a free-form `settings` object (a `JSONField`, which a PATCH replaces
/// whole) and a `balance` (a `DecimalField(max_digits=20, decimal_places=2)`, rendered as a string).
struct Profile: CRUDModel, Codable, Hashable {
    static let path = "profiles"

    struct Settings: Codable, Hashable {
        var theme = "dark"
        var language = "en"
    }

    var id: Int?
    var name: String
    var settings = Settings()
    var balance: Decimal = 0
}
