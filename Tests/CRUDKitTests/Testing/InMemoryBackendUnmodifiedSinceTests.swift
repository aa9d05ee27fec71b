import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// `If-Unmodified-Since` on writes (issue 32, item 3): 412 when the object changed after that second, so a user's
/// test sees both the protection and its one-second window (HTTP dates have no fraction).
@Suite struct InMemoryBackendUnmodifiedSinceTests {
    let clock = Locked(Date(timeIntervalSince1970: 1_700_000_000.2))
    let second = "Tue, 14 Nov 2023 22:13:20 GMT"  // 1_700_000_000
    let nextSecond = "Tue, 14 Nov 2023 22:13:21 GMT"

    func backend(_ style: InMemoryBackend.Style = InMemoryBackend.Style()) -> InMemoryBackend {
        let clock = self.clock
        let backend = InMemoryBackend(style: style, clock: { clock.withLock { $0 } })
        backend.register("people")
        backend.insert(["first_name": "Ada"], into: "people")
        return backend
    }

    func set(_ time: TimeInterval) { clock.withLock { $0 = Date(timeIntervalSince1970: time) } }

    @Test func aChangeAfterThatSecondAnswers412() async throws {
        let backend = backend()
        let read = try await call(backend, .get, "/people/1")
        #expect(read.headers["Last-Modified"] == second)
        set(1_700_000_001.0)
        _ = try await call(backend, .patch, "/people/1", json: ["age": 1])  // someone else, a second later

        let late = try await call(
            backend, .patch, "/people/1", json: ["age": 2], headers: ["If-Unmodified-Since": second])
        let put = try await call(
            backend, .put, "/people/1", json: ["first_name": "X"], headers: ["If-Unmodified-Since": second])
        let delete = try await call(backend, .delete, "/people/1", headers: ["If-Unmodified-Since": second])
        let current = try await call(
            backend, .patch, "/people/1", json: ["age": 3], headers: ["If-Unmodified-Since": nextSecond])

        #expect(late.status == 412)
        #expect(late.json == ["detail": "Precondition failed."])
        #expect(late.headers["Last-Modified"] == nextSecond)
        #expect(put.status == 412)
        #expect(delete.status == 412)
        #expect(backend.record(in: "people", id: 1)?["age"] == 3)  // only the write that knew the change passed
        #expect(current.status == 200)
    }

    @Test func twoWritesWithinTheSameSecondBothPass() async throws {
        let backend = backend()
        set(1_700_000_000.6)
        let first = try await call(
            backend, .patch, "/people/1", json: ["age": 1], headers: ["If-Unmodified-Since": second])
        set(1_700_000_000.999)
        let second = try await call(
            backend, .patch, "/people/1", json: ["age": 2], headers: ["If-Unmodified-Since": second])

        // The window: the second write did not see the first and still passed (a lost update on a real server too).
        #expect(first.status == 200)
        #expect(second.status == 200)
    }

    @Test func theSecondBoundary() async throws {
        let backend = backend()
        set(1_700_000_001.0)  // exactly the next second
        _ = try await call(backend, .patch, "/people/1", json: ["age": 1])
        let before = try await call(
            backend, .patch, "/people/1", json: ["age": 2], headers: ["If-Unmodified-Since": second])
        let at = try await call(
            backend, .patch, "/people/1", json: ["age": 3], headers: ["If-Unmodified-Since": nextSecond])

        #expect(before.status == 412)
        #expect(at.status == 200)
    }

    @Test func ifMatchWinsAndAnUnreadableDateIsIgnored() async throws {
        let backend = backend()
        let tag = try #require(try await call(backend, .get, "/people/1").headers["ETag"])
        set(1_700_000_005)
        let matching = try await call(
            backend, .patch, "/people/1", json: ["age": 1],
            headers: ["If-Match": tag, "If-Unmodified-Since": "Sat, 01 Jan 2000 00:00:00 GMT"])
        let junk = try await call(
            backend, .patch, "/people/1", json: ["age": 2], headers: ["If-Unmodified-Since": "yesterday"])

        #expect(matching.status == 200)  // RFC 9110: If-Unmodified-Since is not evaluated when If-Match is sent
        #expect(junk.status == 200)
    }

    @Test func weakTagsNeverMatchIfMatchAndIfNoneMatchStarGuardsWrites() async throws {
        var style = InMemoryBackend.Style()
        style.entityTags = .weak
        let backend = backend(style)
        let tag = try #require(try await call(backend, .get, "/people/1").headers["ETag"])
        let weak = try await call(backend, .patch, "/people/1", json: ["age": 1], headers: ["If-Match": tag])
        let star = try await call(
            backend, .put, "/people/1", json: ["first_name": "B"], headers: ["If-None-Match": "*"])
        let anyTag = try await call(backend, .patch, "/people/1", json: ["age": 2], headers: ["If-Match": "*"])

        #expect(tag.hasPrefix("W/"))
        #expect(weak.status == 412)  // strong comparison: a weak tag never matches
        #expect(star.status == 412)  // the object exists
        #expect(anyTag.status == 200)
    }

    @Test func frameworkStylesIgnoreItUnlessSwitchedOn() async throws {
        set(1_700_000_009)
        let ignored = backend(.drf)
        var switched = InMemoryBackend.Style.drf
        switched.honoursIfUnmodifiedSince = true
        let honoured = backend(switched)
        let headers: HTTPHeaders = ["If-Unmodified-Since": "Sat, 01 Jan 2000 00:00:00 GMT"]

        #expect(try await call(ignored, .patch, "/people/1/", json: ["age": 1], headers: headers).status == 200)
        #expect(try await call(honoured, .patch, "/people/1/", json: ["age": 1], headers: headers).status == 412)
    }

    /// A user's conflict test with `Versioned` against a server that sends weak tags and `Last-Modified`:
    /// the stale copy's write carries `If-Unmodified-Since` and fails with `.conflict` once the change is a
    /// second old, and passes within the same second.
    @Test func versionedOnAWeakTagConflictsOnceTheChangeIsASecondOld() async throws {
        var style = InMemoryBackend.Style()
        style.entityTags = .weak
        let backend = backend(style)
        let scope = Member.using(API(baseURL: testBase, transport: backend))
        backend.insert(["first_name": "Ada", "last_name": "L"], into: "people")
        var mine = try await scope.readTagged(id: 2)
        var theirs = mine
        set(1_700_000_000.7)
        theirs.age = 40
        _ = try await theirs.updateChanges()
        mine.age = 41
        let sameSecond = try await mine.updateChanges()  // the window: passes, their 40 is lost

        set(1_700_000_002)
        theirs = try await scope.readTagged(id: 2)
        var stale = theirs
        theirs.age = 50
        _ = try await theirs.updateChanges()
        stale.age = 51
        await #expect {
            _ = try await stale.updateChanges()
        } throws: { error in
            guard case CRUDError.conflict = error else { return false }
            return true
        }
        #expect(sameSecond.value.age == 41)
        #expect(backend.record(in: "people", id: 2)?["age"] == 50)
    }
}
