import CRUDKit
import Foundation

// Deliberately wrong, late: the fourth of five chained api calls passes a number in a text query. `.ci/typecheck.sh`
// expects a plain type error, quickly (the whole chain has to be solved before the mistake shows).

func wrongLateCensus(_ api: API, page: Int, name: String) -> Future<String> {
    api.get("people", query: ["page": "\(page)", "q": name], as: [Person].self)
        .map { people in people.filter { ($0.age ?? 0) >= 18 } }
        .flatMap { adults in api.post("census", query: ["count": "\(adults.count)"], body: .json(["n": adults.count])) }
        .flatMap { _ in api.get("census/latest", query: ["fields": "count"]) }
        .flatMap { response in
            api.put("census/latest/seen", query: ["status": response.status, "q": name], as: Post.self)
        }
        .flatMap { post in api.delete("posts/\(post.id ?? 0)").map { _ in post.title } }
}
