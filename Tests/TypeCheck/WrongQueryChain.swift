import CRUDKit
import Foundation

// Deliberately wrong: a number in a `[String: String]`-style query, first of five chained api calls. Before every
// async operation was `@_disfavoredOverload`, the type checker gave up on this chain after 36 s ("unable to
// type-check this expression in reasonable time"); `.ci/typecheck.sh` expects a plain type error, quickly.

func wrongCensus(_ api: API, page: Int, name: String) -> Future<String> {
    api.get("people", query: ["page": "\(page)", "per_page": 50, "q": name], as: [Person].self)
        .map { people in people.filter { ($0.age ?? 0) >= 18 } }
        .flatMap { adults in api.post("census", query: ["count": "\(adults.count)"], body: .json(["n": adults.count])) }
        .flatMap { _ in api.get("census/latest", query: ["fields": "count"]) }
        .flatMap { response in api.put("census/latest/seen", query: ["status": "\(response.status)"], as: Post.self) }
        .flatMap { post in api.delete("posts/\(post.id ?? 0)").map { _ in post.title } }
}
