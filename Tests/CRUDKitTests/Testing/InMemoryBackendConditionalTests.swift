import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

@Suite struct InMemoryBackendConditionalTests {
    let clock = Locked(Date(timeIntervalSince1970: 1_700_000_000))
    let backend: InMemoryBackend

    init() {
        let clock = self.clock
        backend = InMemoryBackend(clock: { clock.withLock { $0 } })
        backend.register("people")
        backend.insert(["first_name": "Ada"], into: "people")
    }

    @Test func everySingleObjectAnswerHasAnETagThatChangesOnWrite() async throws {
        let read = try await call(backend, .get, "/people/1")
        let patched = try await call(backend, .patch, "/people/1", json: ["age": 36])
        let reread = try await call(backend, .get, "/people/1")
        let created = try await call(backend, .post, "/people", json: ["first_name": "Alan"])

        let tag = try #require(read.headers["ETag"])
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\""))
        #expect(patched.headers["ETag"] != tag)
        #expect(reread.headers["ETag"] == patched.headers["ETag"])
        #expect(created.headers["ETag"] != nil)
        #expect(read.headers["Last-Modified"] == "Tue, 14 Nov 2023 22:13:20 GMT")
    }

    @Test func ifMatchGuardsWrites() async throws {
        let tag = try #require(try await call(backend, .get, "/people/1").headers["ETag"])

        let stale = try await call(
            backend, .put, "/people/1", json: ["first_name": "X"], headers: ["If-Match": "\"0\""])
        let fresh = try await call(backend, .patch, "/people/1", json: ["age": 1], headers: ["If-Match": tag])
        let old = try await call(backend, .delete, "/people/1", headers: ["If-Match": tag])
        let any = try await call(backend, .delete, "/people/1", headers: ["If-Match": "*"])

        #expect(stale.status == 412)
        #expect(stale.json == ["detail": "Precondition failed."])
        #expect(stale.headers["ETag"] == tag)
        #expect(fresh.status == 200)
        #expect(old.status == 412)
        #expect(any.status == 204)
    }

    @Test func ifNoneMatchAnswers304() async throws {
        let tag = try #require(try await call(backend, .get, "/people/1").headers["ETag"])

        let same = try await call(backend, .get, "/people/1", headers: ["If-None-Match": "\"x\", W/\(tag)"])
        _ = try await call(backend, .patch, "/people/1", json: ["age": 2])
        let changed = try await call(backend, .get, "/people/1", headers: ["If-None-Match": tag])

        #expect(same.status == 304)
        #expect(same.body.isEmpty)
        #expect(same.headers["ETag"] == tag)
        #expect(changed.status == 200)
        #expect(changed.json["age"] == 2)
    }

    @Test func ifModifiedSinceAnswers304UntilTheNextWrite() async throws {
        let since = try #require(try await call(backend, .get, "/people/1").headers["Last-Modified"])
        let unchanged = try await call(backend, .get, "/people/1", headers: ["If-Modified-Since": since])
        clock.withLock { $0 += 60 }
        _ = try await call(backend, .patch, "/people/1", json: ["age": 3])
        let changed = try await call(backend, .get, "/people/1", headers: ["If-Modified-Since": since])

        #expect(unchanged.status == 304)
        #expect(changed.status == 200)
        #expect(changed.headers["Last-Modified"] == "Tue, 14 Nov 2023 22:14:20 GMT")
    }

    @Test func idempotencyKeyReplaysTheFirstAnswer() async throws {
        let body: JSON = ["first_name": "Grace"]
        let first = try await call(backend, .post, "/people", json: body, headers: ["Idempotency-Key": "k1"])
        let again = try await call(backend, .post, "/people", json: body, headers: ["Idempotency-Key": "k1"])
        let other = try await call(backend, .post, "/people", json: body, headers: ["Idempotency-Key": "k2"])
        let misuse = try await call(
            backend, .post, "/people", json: ["first_name": "X"], headers: ["Idempotency-Key": "k1"])

        #expect(first.status == 201)
        #expect(again.status == 201)
        #expect(again.body == first.body)
        #expect(again.headers["Idempotent-Replayed"] == "true")
        #expect(other.json["id"] == 3)
        #expect(misuse.status == 422)
        #expect(backend.count(in: "people") == 3)
    }
}
