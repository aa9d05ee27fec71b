import CRUDKit
import Foundation

// `.ci/typecheck.sh` type-checks this beside FutureChain.swift, under the same budget and with no warning allowed.
// Every `async` operation is `@_disfavoredOverload` (so that wrong Future chains fail fast); in async code the async
// form must still be the one chosen. Each result is pinned to its plain type: had the `Future` form been picked, the
// pin would not type-check (and `await` on it would warn).

/// The same five API calls as `census`, awaited.
func awaitedCensus(_ api: API, page: Int, name: String) async throws -> String {
    let people = try await api.get(
        "people", query: ["page": "\(page)", "per_page": "50", "q": name], as: [Person].self)
    let adults: [Person] = people.filter { ($0.age ?? 0) >= 18 }
    let posted = try await api.post("census", query: ["count": "\(adults.count)"], body: .json(["n": adults.count]))
    let _: HTTPResponse = posted
    let latest = try await api.get("census/latest", query: ["fields": ["count", "date"], "page": 1] as FormParameters)
    let _: HTTPResponse = latest
    let seen = try await api.put("census/latest/seen", query: ["status": "\(latest.status)"], as: Post.self)
    let _: Post = seen
    try await api.delete("posts/\(seen.id ?? 0)")
    return seen.title
}

/// The same five model operations as `birthday`, awaited, plus a Task that awaits one.
func awaitedBirthday(of id: Int) async throws -> Int {
    var person = try await Person.read(id: id)
    let _: Person = person
    person.age = (person.age ?? 0) + 1
    let updated = try await person.update()
    let _: Person = updated
    let people = try await Person.list(["last_name": .string(updated.lastName), "page": "\(1)"])
    let _: [Person] = people
    let post = try await Post(title: "\(people.count)").create()
    let _: Post = post
    let okay = try await post.delete()
    let _: Okay = okay
    let task = Task { try await Person.read(id: id) }
    let _: Person = try await task.value
    return post.id ?? 0
}
