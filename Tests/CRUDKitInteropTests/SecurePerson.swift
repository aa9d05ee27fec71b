import CRUDKit
import Foundation

/// `/secure-people/`: the same people behind DRF's `TokenAuthentication`.
struct SecurePerson: CRUDModel, Codable, Hashable {
    static let path = "secure-people"

    var id: Int?
    var firstName: String
    var lastName: String
    var age: Int?
}
