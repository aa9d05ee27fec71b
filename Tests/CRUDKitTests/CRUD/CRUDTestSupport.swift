import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// A member of the test collection `people`.
struct Member: CRUDModel, Codable, Hashable {
    static let path = "people"
    var id: Int?
    var firstName: String
    var lastName: String
    var age: Int?
    var favoriteColor: String?
    var address: Address?

    struct Address: Codable, Hashable {
        var city: String
        var zip: String?
    }

    init(id: Int? = nil, firstName: String, lastName: String, age: Int? = nil, favoriteColor: String? = nil) {
        self.id = id
        self.firstName = firstName
        self.lastName = lastName
        self.age = age
        self.favoriteColor = favoriteColor
    }
}

/// A post nested under a member.
struct Note: CRUDModel, Codable, Hashable {
    static let path = "posts"
    var id: Int?
    var title: String
}

extension InMemoryBackend {
    /// The server most model tests talk to, answering like Django REST framework: `people` (a negative `age` on
    /// create answers 400 `{"age": ["…"]}`), `people/{id}/posts`, the actions `GET people/search?q=` (people whose
    /// first name is `q`, in a plain array) and `POST people/:id/activate` (the person with `"active": true`), and
    /// `{count, next, previous, results}` pages of 2. A PUT replaces the whole object.
    ///
    /// - Parameters:
    ///   - pagination: How lists are split into pages.
    ///   - trailingSlash: Whether paths end with `/` (both forms are accepted by default).
    ///   - createAnswer: What a successful POST answers.
    ///   - updateAnswer: What a successful PUT or PATCH answers.
    static func people(
        pagination: Pagination = .envelope(pageSize: 2), trailingSlash: TrailingSlash = .either,
        createAnswer: CreateAnswer = .object, updateAnswer: UpdateAnswer = .object
    ) -> InMemoryBackend {
        let style = Style(
            trailingSlash: trailingSlash, pagination: pagination, errors: .drf, createAnswer: createAnswer,
            updateAnswer: updateAnswer, putOmissions: .removed)
        let backend = InMemoryBackend(style: style)
        backend.register("people") { person, isCreate in
            guard isCreate, let age = person["age"].int, age < 0 else { return [:] }
            return ["age": ["Ensure this value is greater than or equal to 0."]]
        }
        backend.register("people/{id}/posts")
        backend.on(.get, "people/search") { request, backend in
            let query = request.recorded.query["q"]
            return .json(.array(backend.records(in: "people").filter { $0["first_name"].string == query }))
        }
        backend.on(.post, "people/:id/activate") { request, backend in
            guard var person = backend.record(in: "people", id: request.parameters["id"] ?? "") else {
                return .json(["detail": "Not found."], status: 404)
            }
            person["active"] = true
            return .json(person)
        }
        return backend
    }

    /// Stores `count` people named `Person <n>` (ids 1 to `count` in a new backend), without a request; `age` is
    /// `null`, as Django REST framework writes every field, so an `age__gte` filter leaves them out.
    func seed(_ count: Int) {
        for index in 1...count {
            insert(["first_name": "Person", "last_name": .string("\(index)"), "age": .null], into: "people")
        }
    }

    /// An API on this backend, in-process, at `https://api.example.com/v1`.
    func api(conventions: APIConventions = .standard) -> API {
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com/v1")!)
        configuration.transport = self
        configuration.conventions = conventions
        return API(configuration: configuration)
    }

    /// Every request received, as `METHOD /path?query body` (the body only when there is one).
    var log: [String] { recorder.requests.map { $0.body.isEmpty ? "\($0)" : "\($0) \($0.text)" } }
}
