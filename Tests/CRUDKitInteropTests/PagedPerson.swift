import CRUDKit
import Foundation

/// `/people/` again, with its page size in its pagination settings instead of every query: DRF's
/// `?page=N&page_size=10`, stopping at the envelope's `count`.
struct PagedPerson: CRUDModel, Codable, Hashable {
    static let path = "people"
    static func conventions(from api: APIConventions) -> APIConventions {
        api.with { $0.pagination = .pageNumber("page", sizeParameter: "page_size", pageSize: 10) }
    }

    var id: Int?
    var firstName: String
    var lastName: String
}
