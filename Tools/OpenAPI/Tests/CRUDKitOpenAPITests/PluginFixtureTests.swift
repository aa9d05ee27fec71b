import CRUDKit
import CRUDKitTesting
import Foundation
import OpenAPIPluginFixture
import Testing

/// The models CRUDKitOpenAPIPlugin generated at build time from Tests/PluginFixture/openapi.yaml (the target holds
/// no Swift file of its own), used through CRUDKit against a stub server.
@Suite struct PluginFixtureTests {
    @Test func thePluginGeneratedModelsReadAndCreate() async throws {
        let stubs = StubTransport(unmatched: .fail)
        let api = API(baseURL: URL(string: "https://api.example.com/api")!, conventions: .djangoREST, transport: stubs)
        _ = stubs.on(.get, "books/:id", .json(text: #"{"id": 7, "title": "Emma", "published_on": "1815-12-23"}"#))
        let book = try await Book.using(api).read(id: 7)
        #expect(book.id == 7)
        #expect(book.title == "Emma")
        #expect(book.shelfLabel == "EMMA")
        #expect(book.publishedOn == .value(CalendarDate(year: 1815, month: 12, day: 23)))
        #expect(stubs.recorder.last?.path == "/api/books/7/")
        _ = stubs.on(.post, "books") { _ in .json(text: #"{"id": 8, "title": "Persuasion"}"#, status: 201) }
        let made = try await Book.using(api).create(Book(title: "Persuasion"))
        #expect(made.id == 8)
        let body = try #require(stubs.recorder.last).json
        #expect(body["title"] == "Persuasion")
        #expect(body["id"] == nil)
    }
}
