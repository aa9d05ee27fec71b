import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// Settings in one place: the API's conventions, then one per-model override (`conventions(from:)`), field by field;
/// one path customization point (`path(for:)`); a `Versioned` value writes through the scope it was read from.
@Suite struct ModelConventionsTests {
    /// A DRF API; this model changes only its coding and its query style.
    private struct Camel: CRUDModel, Codable {
        static let path = "camels"
        var id: Int?
        var firstName: String

        static func conventions(from api: APIConventions) -> APIConventions {
            api.with {
                $0.coding = .camelCase
                $0.queryStyle = .brackets
            }
        }
    }

    /// Reads live elsewhere; every other operation under `path`.
    private struct Thing: CRUDModel, Codable {
        static let path = "things"
        var id: String?

        static func path(for operation: CRUDOperation) -> String { operation == .read ? "lookup/things" : path }
    }

    private static func stubs(_ body: String, headers: HTTPHeaders = [:]) -> StubTransport {
        StubTransport().on(nil, "**", .json(text: body, headers: headers))
    }

    @Test func whatTheModelChangesWinsFieldByFieldAndTheRestFollowsTheAPI() async throws {
        let envelope = #"{"count": 1, "next": null, "previous": null, "results": [{"id": 1, "firstName": "Ada"}]}"#
        let stubs = Self.stubs(envelope)
        let api = API(baseURL: testBase, conventions: .djangoREST, token: "k", transport: stubs)
        let listed = try await Camel.using(api).list(["tags": ["a", "b"]])
        let others = try await api.get("plain", query: ["tags": ["a", "b"]] as FormParameters)
        let sent = stubs.recorder.requests.map(\.request)

        #expect(listed.map(\.firstName) == ["Ada"])  // the model's coding (camelCase keys in the envelope)
        #expect(sent[0].url.absoluteString == "https://api.example.com/v1/camels/?tags%5B%5D=a&tags%5B%5D=b")
        #expect(sent[0].headers["Authorization"] == "Token k")  // the API's: slash, pagination, token
        #expect(others.status == 200)
        #expect(sent[1].url.absoluteString == "https://api.example.com/v1/plain/?tags=a&tags=b")  // the API's style
    }

    @Test func theModelsCodingWritesItsBodies() async throws {
        let stubs = Self.stubs(#"{"id": 3, "firstName": "Ada"}"#)
        let api = API(baseURL: testBase, conventions: .djangoREST, transport: stubs)
        let made = try await Camel.using(api).create(Camel(firstName: "Ada"))
        #expect(made.id == 3)
        #expect(stubs.recorder.first?.request.body.data == Data(#"{"firstName":"Ada"}"#.utf8))
        #expect(stubs.recorder.first?.request.url.absoluteString == "https://api.example.com/v1/camels/")
    }

    @Test func onePathOverrideLeavesTheOtherOperationsAloneAndIdsStayOneSegment() async throws {
        let stubs = Self.stubs(#"{"id": "a/b c"}"#)
        let api = API(baseURL: testBase, transport: stubs)
        let things = Thing.using(api)
        let thing = try await things.read(id: "a/b c")
        _ = try await things.update(thing)
        try await things.delete(id: "a/b c")
        _ = try await Thing.scoped(to: Member.self, id: 12, api: api).read(id: "../x")
        #expect(
            stubs.recorder.requests.map { "\($0.method.rawValue) \($0.request.url.absoluteString)" } == [
                "GET https://api.example.com/v1/lookup/things/a%2Fb%20c",
                "PUT https://api.example.com/v1/things/a%2Fb%20c",
                "DELETE https://api.example.com/v1/things/a%2Fb%20c",
                "GET https://api.example.com/v1/people/12/lookup/things/..%2Fx",
            ])
    }

    @Test func aVersionedValueWritesThroughTheScopeItWasReadFrom() async throws {
        let stubs = Self.stubs(#"{"id": 7, "title": "Hi"}"#, headers: ["ETag": "\"v1\""])
        let api = API(baseURL: testBase, transport: stubs)
        let posts = Note.scoped(to: Member.self, id: 12, api: api)
        var tagged = try await posts.readTagged(id: 7)
        tagged.title = "Changed"
        // `API.shared` has no base URL here: a write through the model's own scope could not be built.
        try await API.withShared(API(baseURL: nil)) {
            _ = try await tagged.update()
            _ = try await tagged.updateChanges()
            try await tagged.delete()
        }
        let requests = stubs.recorder.requests
        #expect(
            requests.map { "\($0.method.rawValue) \($0.path)" } == [
                "GET /v1/people/12/posts/7", "PUT /v1/people/12/posts/7", "PATCH /v1/people/12/posts/7",
                "DELETE /v1/people/12/posts/7",
            ])
        #expect(requests.dropFirst().allSatisfy { $0.request.headers["If-Match"] == "\"v1\"" })
    }

    /// Under a Laravel API (answers under `data`) with no trailing slash: one model reads bare answers, another
    /// wants a slash, nested too; each changes only that field.
    private struct Bare: Readable, Codable {
        static let path = "bare"
        var id: Int?

        static func conventions(from api: APIConventions) -> APIConventions { api.with { $0.responseKey = nil } }
    }

    private struct Slashy: Readable, Codable {
        static let path = "slashy"
        var id: Int?

        static func conventions(from api: APIConventions) -> APIConventions { api.with { $0.trailingSlash = .always } }
    }

    @Test func aModelsChangeWinsOverAPresetsFieldAndOnlyThatField() async throws {
        let stubs = Self.stubs(#"{"id": 1, "data": {"id": 2}}"#)
        let api = API(baseURL: testBase, conventions: .laravel, transport: stubs)
        let bare = try await Bare.using(api).read(id: 1)
        let slashy = try await Slashy.scoped(to: Member.self, id: 12, api: api).read(id: 3)
        #expect(bare.id == 1)  // read as it is: the model turned the response key off
        #expect(slashy.id == 2)  // the API's response key still applies to it
        #expect(
            stubs.recorder.requests.map(\.request.url.absoluteString) == [
                "https://api.example.com/v1/bare/1", "https://api.example.com/v1/people/12/slashy/3/",
            ])
    }
}
