import CRUDKit
import CRUDKitCore
import CRUDKitTesting
import Foundation
import Testing

/// `MiddlewareContext.urlTemplate`: a model operation names its route with the ids as placeholders (what a metric
/// label or span name may carry); a plain path leaves it `nil` unless the caller names it.
@Suite struct MiddlewareContextURLTemplateTests {
    struct Person: CRUDModel, Codable, Hashable {
        static let path = "people"
        var id: Int?
        var name: String
    }

    struct Post: CRUDModel, Codable, Hashable {
        static let path = "posts"
        var id: Int?
        var title: String
    }

    /// An API on `stubs` under `/v1` whose innermost middleware records each request's template.
    private static func api(_ stubs: StubTransport, _ seen: Locked<[String?]>) -> API {
        API(baseURL: URL(string: "https://api.example.com/v1")!, transport: stubs).with {
            $0.middleware.append(
                ClosureMiddleware.intercept("template") { request, context, next in
                    seen.withLock { $0.append(context.urlTemplate) }
                    return try await next(request, context)
                })
        }
    }

    @Test func modelOperationsNameTheirRouteWithoutIds() async throws {
        let stubs = StubTransport()
            .on(.get, "people/:id", .json(["id": 1234, "name": "Ada"]))
            .on(.get, "people", .json([["id": 1234, "name": "Ada"]]))
            .on(.delete, "people/:id", .status(204))
            .on(.post, "people/:id/activate", .status(204))
            .on(.get, "people/search", .json([]))
            .on(.get, "people/:id/posts/:post", .json(["id": 9, "title": "Hi"]))
        let seen = Locked<[String?]>([])
        let api = Self.api(stubs, seen)
        let ada = try await Person.using(api).read(id: 1234)
        _ = try await Person.using(api).list()
        try await Person.using(api).delete(id: 1234)
        try await Person.using(api).action(.post, "activate", on: ada, as: .okay)
        let _: [Person] = try await Person.using(api).action(.get, "search", as: .models())
        _ = try await Post.scoped(to: ada, api: api).read(id: 9)
        #expect(
            seen.withLock { $0 } == [
                "/v1/people/{id}", "/v1/people", "/v1/people/{id}", "/v1/people/{id}/activate", "/v1/people/search",
                "/v1/people/{parent_id}/posts/{id}",
            ])
    }

    @Test func aPlainPathHasNoTemplateUnlessTheCallerNamesOne() async throws {
        let stubs = StubTransport().on(.get, "people/:id", .json(["id": 1234, "name": "Ada"]))
        let seen = Locked<[String?]>([])
        let api = Self.api(stubs, seen)
        let _: Person = try await api.get("people/1234")
        let _: Person = try await MiddlewareContext.$urlTemplate.withValue("/v1/people/{id}") {
            try await api.get("people/1234")
        }
        #expect(seen.withLock { $0 } == [nil, "/v1/people/{id}"])
    }
}
