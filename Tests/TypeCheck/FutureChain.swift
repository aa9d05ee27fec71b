import CRUDKit
import Foundation

// `.ci/typecheck.sh` type-checks this with `-warn-long-expression-type-checking`: each chain of five Future
// calls must type-check within the budget (200 ms).

/// Five model operations in one chain: read, update, list, create, delete.
func birthday(of id: Int) -> Future<Int> {
    Person.read(id: id)
        .map { person in
            var older = person
            older.age = (person.age ?? 0) + 1
            return older
        }
        .flatMap { person in person.update() }
        .flatMap { person in
            Person.list(["last_name": .string(person.lastName), "page": "\(1)", "tags": ["a", "b"]]).map {
                ($0, person)
            }
        }
        .flatMap { people, person in Post(title: "\(people.count) \(person.lastName)s").create() }
        .flatMap { post in post.delete().map { _ in post.id ?? 0 } }
}

/// Five API calls in one chain, with queries written as literals: `[String: String]` and ``FormParameters``.
func census(_ api: API, page: Int, name: String) -> Future<String> {
    api.get("people", query: ["page": "\(page)", "per_page": "50", "q": name], as: [Person].self)
        .map { people in people.filter { ($0.age ?? 0) >= 18 } }
        .flatMap { adults in
            api.post("census", query: ["count": "\(adults.count)"], body: .json(["adults": adults.count]))
        }
        .flatMap { _ in api.get("census/latest", query: ["fields": ["count", "date"], "page": 1] as FormParameters) }
        .flatMap { response in
            api.put("census/latest/seen", query: ["status": "\(response.status)"], as: Post.self)
        }
        .flatMap { post in api.delete("posts/\(post.id ?? 0)", query: [:]).map { _ in post.title } }
}
