import CRUDKit
import Foundation

// Top-level code that awaits is an async context, yet it picks the Future overload of a write. `.ci/typecheck.sh`
// expects this to fail to compile, with an error that names the fix (@main) on every line marked `// misuse`.

struct Person: CRUDModel, Codable {
    static let path = "people"
    var id: Int?
    var firstName: String
}

API.shared = API(baseURL: URL(string: "https://api.example.com")!)
let ada: Person = try await Person(firstName: "Ada").create()
try await ada.delete()  // misuse
try await ada.action(.post, "notify", as: .okay)  // misuse
let tagged: Versioned<Person> = try await Person.readTagged(id: 1)
try await tagged.update()  // misuse
try await tagged.updateChanges()  // misuse
try await tagged.delete()  // misuse
