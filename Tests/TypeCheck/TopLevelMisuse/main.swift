import CRUDKit
import Foundation

// Top-level code that awaits is an async context, yet it picks the Future overload of a write. `.ci/typecheck.sh`
// expects this to fail to compile, with an error that names the fix (@main).

struct Person: CRUDModel, Codable {
    static let path = "people"
    var id: Int?
    var firstName: String
}

CRUDKit.configure(baseURL: URL(string: "https://api.example.com")!)
let ada: Person = try await Person(firstName: "Ada").create()
try await ada.delete()
try await ada.action(.post, "notify", as: Okay.self)
