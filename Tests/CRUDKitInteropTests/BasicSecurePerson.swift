import CRUDKit
import Foundation

/// `/secure/people/`: the same people behind DRF's `BasicAuthentication` first, then `TokenAuthentication`, so
/// every 401 carries `WWW-Authenticate: Basic realm="api"`.
struct BasicSecurePerson: CRUDModel, Codable, Hashable {
    static let path = "secure/people"

    var id: Int?
    var firstName: String
    var lastName: String
    var age: Int?
}
