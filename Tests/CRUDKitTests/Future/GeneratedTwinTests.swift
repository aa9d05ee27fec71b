import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// The `Future` twins that were missing before the twins were generated (issue 16 item 3): `Versioned`'s
/// `updateChanges()` and `delete()`, and `ResourceScope.fetchPage(_:)`; each against an in-memory server.
@Suite struct GeneratedTwinTests {
    /// A person of the in-memory `people` collection.
    struct Twin: CRUDModel, Codable, Hashable {
        static let path = "people"
        var id: Int?
        var name: String
    }

    let backend = InMemoryBackend()
    let api: API

    init() {
        backend.register("people")
        api = API(baseURL: URL(string: "https://api.example.com")!, transport: backend)
    }

    // The write twins are unavailable in async code (noasync): they are started from synchronous helpers.
    private static func startUpdateChanges(_ versioned: Versioned<Twin>) -> Future<Versioned<Twin>> {
        versioned.updateChanges()
    }

    private static func startDelete(_ versioned: Versioned<Twin>) -> Future<Okay> {
        versioned.delete()
    }

    @Test func versionedUpdateChangesFuturePatchesWithIfMatch() async throws {
        let scope = Twin.using(api)
        let made = try await scope.create(Twin(name: "Ada"))
        var tagged = try await scope.readTagged(id: try #require(made.id))
        let stale = tagged
        tagged.name = "Ada King"

        // `Versioned`'s operations use the model's API (`API.shared` unless the model names another).
        let saved = try await API.withShared(api) { try await Self.startUpdateChanges(tagged).value }

        #expect(saved.value.name == "Ada King")
        #expect(saved.etag != nil && saved.etag != tagged.etag)
        let patch = try #require(backend.recorder.requests(.patch, "people/*").last)
        #expect(patch.request.headers["If-Match"] == tagged.etag)
        #expect(String(decoding: patch.request.body.data ?? Data(), as: UTF8.self) == #"{"name":"Ada King"}"#)
        // The stale copy's tag no longer matches: the future fails with a conflict (412).
        var late = stale
        late.name = "Lovelace"
        await #expect {
            _ = try await API.withShared(api) { try await Self.startUpdateChanges(late).value }
        } throws: { error in
            guard case CRUDError.conflict = error else { return false }
            return true
        }
    }

    @Test func versionedUpdateChangesFutureWithNothingChangedSendsNothing() async throws {
        let scope = Twin.using(api)
        let made = try await scope.create(Twin(name: "Ada"))
        let tagged = try await scope.readTagged(id: try #require(made.id))
        let before = backend.recorder.requests.count

        let same = try await API.withShared(api) { try await Self.startUpdateChanges(tagged).value }

        #expect(same.value == tagged.value && same.etag == tagged.etag)
        #expect(backend.recorder.requests.count == before)
    }

    @Test func versionedDeleteFutureDeletesWithIfMatch() async throws {
        let scope = Twin.using(api)
        let made = try await scope.create(Twin(name: "Ada"))
        let tagged = try await scope.readTagged(id: try #require(made.id))

        let okay = try await API.withShared(api) { try await Self.startDelete(tagged).value }

        #expect(okay == Okay())
        let delete = try #require(backend.recorder.requests(.delete, "people/*").last)
        #expect(delete.request.headers["If-Match"] == tagged.etag)
        await #expect {
            _ = try await scope.read(id: try #require(made.id))
        } throws: { error in
            (error as? CRUDError)?.isNotFound == true
        }
    }

    @Test func fetchPageFutureFetchesThatPage() async throws {
        let scope = Twin.using(api)
        _ = try await scope.create(Twin(name: "Ada"))
        _ = try await scope.create(Twin(name: "Grace"))

        let future: Future<Page<Twin>> = scope.fetchPage(PageRequest(query: ["name": "Grace"]))
        let page = try await future.value

        #expect(page.items.map(\.name) == ["Grace"])
        let list = try #require(backend.recorder.requests(.get, "people").last)
        #expect(list.query == ["name": "Grace"])
    }

    @Test func fetchPageFutureCallsBackOnTheAPIsQueue() async throws {
        let queue = DispatchQueue(label: "twins.callbacks")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        var configuration = api.configuration
        configuration.callbackQueue = queue
        let onQueue = API(configuration: configuration)
        let scope = Twin.using(onQueue)

        let ranOnQueue = try await withCheckedThrowingContinuation { continuation in
            scope.fetchPage(PageRequest())
                .onSuccess { _ in continuation.resume(returning: DispatchQueue.getSpecific(key: key) == true) }
                .onFailure { continuation.resume(throwing: $0) }
        }

        #expect(ranOnQueue)
    }
}
