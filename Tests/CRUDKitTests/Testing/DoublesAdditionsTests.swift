import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the shipped doubles gained when the suite's own copies (`FakeREST`, `ScriptedTransport`) were replaced by
/// them (issue 16, item 6).
@Suite struct DoublesAdditionsTests {
    /// The error a stub route throws reaches the caller as `URLSessionTransport` would report it.
    @Test(arguments: [
        (URLError(.timedOut) as any Error, "timedOut(idle 7)"),
        (URLError(.cancelled), "cancelled"),
        (CancellationError(), "cancelled"),
        (URLError(.cannotConnectToHost), "transport"),
        (CRUDError.tooManyRedirects(limit: 5), "tooManyRedirects"),
    ])
    func routeErrorsAreReportedAsATransportReportsThem(thrown: any Error, expected: String) async {
        let stubs = StubTransport().on(.get, "people") { _ in throw thrown }
        var request = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/people")!)
        request.timeout = 7
        do {
            _ = try await stubs.send(request)
            Issue.record("expected a failure")
        } catch let error as CRUDError {
            let name: String
            switch error {
            case .timedOut(.idle(let seconds)): name = "timedOut(idle \(Int(seconds)))"
            case .cancelled: name = "cancelled"
            case .transport: name = "transport"
            case .tooManyRedirects: name = "tooManyRedirects"
            default: name = "\(error)"
            }
            #expect(name == expected)
        } catch {
            Issue.record("expected a CRUDError, got \(error)")
        }
    }

    @Test func jsonTextIsSentByteForByte() async throws {
        let stubs = StubTransport()
            .on(.get, "people/:id", .json(text: #"{"id": 12,  "first_name": "Ada"}"#, headers: ["ETag": "\"1\""]))
            .on(.get, "broken", .json(text: "<html>", status: 502))

        let person = try await stubs.send(HTTPRequest(url: URL(string: "https://api.example.com/people/12")!))
        let broken = try await stubs.send(HTTPRequest(url: URL(string: "https://api.example.com/broken")!))

        #expect(person.status == 200)
        #expect(person.body == Data(#"{"id": 12,  "first_name": "Ada"}"#.utf8))
        #expect(person.headers["Content-Type"] == "application/json")
        #expect(person.headers["ETag"] == "\"1\"")
        #expect(broken.status == 502)
        #expect(broken.body == Data("<html>".utf8))
        let api = API(baseURL: URL(string: "https://api.example.com")!, transport: stubs)
        do {
            _ = try await api.get("broken", as: JSON.self)
            Issue.record("expected a failure")
        } catch let error as CRUDError {
            #expect(error.status == 502)
        }
    }

    @Test func actionsGetTheBackendAndReadAndChangeItsObjects() async throws {
        let backend = InMemoryBackend()
        backend.register("people")
        backend.insert(["first_name": "Ada"], into: "people")
        backend.on(.post, "people/:id/activate") { request, backend in
            let id = request.parameters["id"] ?? ""
            guard var person = backend.record(in: "people", id: id) else {
                return .json(["detail": "Not found."], status: 404)
            }
            person["active"] = true
            backend.insert(["first_name": .string("Activated \(id)")], into: "people")
            return .json(person)
        }

        let activated = try await call(backend, .post, "/people/1/activate")
        let missing = try await call(backend, .post, "/people/9/activate")

        #expect(activated.json == ["id": 1, "first_name": "Ada", "active": true])
        #expect(missing.status == 404)
        #expect(backend.records(in: "people").map { $0["first_name"] } == ["Ada", "Activated 1"])
    }

    @Test func oneArgumentActionsStillChooseTheirOverload() async throws {
        let backend = InMemoryBackend()
        backend.on(.get, "a") { .json(["id": .string($0.parameters["x"] ?? "a")]) }
        backend.on(.get, "b") { _ in .status(204) }
        let named: @Sendable (StubRequest) async throws -> StubResponse = { _ in .text("c") }
        backend.on(.get, "c", action: named)

        #expect(try await call(backend, .get, "/a").json == ["id": "a"])
        #expect(try await call(backend, .get, "/b").status == 204)
        #expect(try await call(backend, .get, "/c").body == Data("c".utf8))
    }

    @Test func aBackendWhoseActionsUseItIsFreedWhenReleased() async throws {
        weak var released: InMemoryBackend?
        do {
            let backend = InMemoryBackend()
            backend.register("people")
            backend.on(.get, "people/count") { _, backend in .json(JSON(backend.count(in: "people"))) }
            #expect(try await call(backend, .get, "/people/count").json == 0)
            released = backend
        }
        #expect(released == nil)
    }
}
