import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// Vapor 4 with Fluent: camelCase keys with whole-second dates, create answering 200, upper-case UUID ids,
/// `{"items", "metadata": {"page", "per", "total"}}` paging with no next link, `{"error", "reason"}` errors and a
/// PATCH that ignores `null` (issue 15, items 9 and 11).
@Suite struct VaporPresetTests {
    /// A Vapor model: UUID id, camelCase keys, a date.
    struct Todo: CRUDModel, Codable, Hashable {
        static let path = "todos"
        var id: UUID?
        var title: String
        var dueAt: Date?
        var note: String?
    }

    private static let base = URL(string: "https://api.example.com")!
    /// 2026-11-23T21:04:13.250Z
    private static let due = Date(timeIntervalSince1970: 1_795_467_853.25)

    private func backend(per: Int = 10) -> InMemoryBackend {
        var style = InMemoryBackend.Style.vapor
        style.pagination = .vaporPage(per: per, maxPer: 100)
        let backend = InMemoryBackend(style: style)
        backend.register("todos") { todo, _ in
            (todo["title"].string ?? "").isEmpty ? ["title": ["is required"]] : [:]
        }
        return backend
    }

    @Test func theBackendAnswersLikeVapor() async throws {
        let server = backend(per: 2)
        let made = try await call(server, .post, "/todos", json: ["title": "A", "note": "n"])
        _ = try await call(server, .post, "/todos", json: ["title": "B"])
        _ = try await call(server, .post, "/todos", json: ["title": "C"])
        let id = made.json["id"].string ?? ""
        let patched = try await call(server, .patch, "/todos/\(id)", json: ["note": nil, "title": "A2"])
        let second = try await call(server, .get, "/todos?page=2&per=2")
        let invalid = try await call(server, .post, "/todos", json: ["title": ""])
        let missing = try await call(server, .get, "/todos/\(UUID().uuidString)")

        #expect(made.status == 200)
        #expect(made.headers["Location"] == nil)
        #expect(UUID(uuidString: id) != nil && id == id.uppercased())
        #expect(patched.json["note"] == "n")
        #expect(patched.json["title"] == "A2")
        #expect((second.json["items"].array ?? []).map(\.["title"]) == ["C"])
        #expect(second.json["metadata"] == ["page": 2, "per": 2, "total": 3])
        #expect(second.headers["Link"] == nil)
        #expect(invalid.status == 400)
        #expect(invalid.json == ["error": true, "reason": "title is required"])
        #expect(missing.status == 404)
        #expect(missing.json == ["error": true, "reason": "Not Found"])
    }

    @Test func thePresetWalksEveryPageByTotalAndReadsTheTotal() async throws {
        let server = backend(per: 2)
        for title in ["A", "B", "C", "D", "E"] {
            _ = try await call(server, .post, "/todos", json: ["title": .string(title)])
        }
        let todos = Todo.using(API(baseURL: Self.base, conventions: .vapor, transport: server))
        server.recorder.removeAll()

        let page = try await todos.page()
        var everyone: [Todo] = []
        for try await todo in todos.all() { everyone.append(todo) }

        #expect(page.total == 5)
        #expect(page.items.count == 2)
        #expect(everyone.map(\.title) == ["A", "B", "C", "D", "E"])
        // 1 for page() and 3 for all(): the third page is short, so no fourth is asked for.
        #expect(server.recorder.count(.get, "todos") == 4)
        #expect(server.recorder.last?.query["page"] == "3")
    }

    @Test func aFullLastPageStopsAtTheTotal() async throws {
        let server = backend(per: 2)
        for title in ["A", "B", "C", "D"] {
            _ = try await call(server, .post, "/todos", json: ["title": .string(title)])
        }
        let todos = Todo.using(API(baseURL: Self.base, conventions: .vapor, transport: server))

        var everyone: [Todo] = []
        for try await todo in todos.all() { everyone.append(todo) }

        #expect(everyone.count == 4)
        #expect(server.recorder.count(.get, "todos") == 2)
    }

    @Test func createUpdateAndErrorsThroughThePreset() async throws {
        let server = backend()
        let api = API(baseURL: Self.base, conventions: .vapor, transport: server)
        let todos = Todo.using(api)

        let made = try await todos.create(Todo(title: "Ship", dueAt: Self.due, note: "soon"))
        let post = try #require(server.recorder.requests(.post, "todos").last)
        var cleared = made
        cleared.note = nil
        let patched = try await todos.update(cleared, from: made)
        let replaced = try await todos.update(cleared)
        let error = await #expect(throws: CRUDError.self) { try await todos.create(Todo(title: "")) }

        #expect(post.json["dueAt"] == "2026-11-23T21:04:13Z")
        #expect(post.json.object?["due_at"] == nil)
        #expect(made.id != nil)
        #expect(made.dueAt == Date(timeIntervalSince1970: 1_795_467_853))
        #expect(patched.note == "soon")  // a Vapor PATCH ignores null: update(from:) cannot clear
        #expect(replaced.note == nil)  // a PUT replaces the whole object: update() clears
        #expect(error?.status == 400)
        #expect(api.serverErrors(in: try #require(error))?.messages == ["title is required"])
        #expect(api.serverErrors(in: try #require(error))?.fieldErrors == ["title": ["is required"]])
    }

    @Test func thePresetCarriesTheCoding() {
        var configuration = APIConfiguration(baseURL: Self.base)
        configuration.conventions = .vapor
        var drf = configuration
        drf.conventions = .djangoREST

        #expect(configuration.conventions.coding == .vapor)
        #expect(drf.conventions.coding == .default)  // every preset carries its own coding: one place for it
        #expect(APIConventions.vapor.pagination == .vapor)
    }
}
