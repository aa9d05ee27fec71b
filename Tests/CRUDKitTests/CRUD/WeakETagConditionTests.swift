import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// A weak `ETag` (Rails' `stale?`/`fresh_when`) never goes into `If-Match`; `Last-Modified` stands in (issue 15).
@Suite struct WeakETagConditionTests {
    private static let lastModified = "Tue, 24 Nov 2026 17:00:00 GMT"

    private func transport(etag: String) -> StubTransport {
        StubTransport().on(
            nil, "**",
            .json(
                text: #"{"id": 1, "first_name": "Ada", "last_name": "L"}"#,
                headers: ["ETag": etag, "Last-Modified": Self.lastModified]))
    }

    @Test func weakTagSendsIfUnmodifiedSinceForEveryWrite() async throws {
        let stubs = transport(etag: #"W/"abc""#)
        let scope = Member.using(API(baseURL: testBase, transport: stubs))
        var tagged = try await scope.readTagged(id: 1)
        tagged.favoriteColor = "green"
        _ = try await tagged.update()
        _ = try await tagged.updateChanges()
        try await tagged.delete()
        let writes = stubs.recorder.requests.dropFirst()
        #expect(writes.count == 3)
        for request in writes {
            #expect(request.headers["If-Match"] == nil)
            #expect(request.headers["If-Unmodified-Since"] == Self.lastModified)
        }
    }

    @Test func strongTagStillSendsIfMatch() async throws {
        let stubs = transport(etag: #""abc""#)
        let scope = Member.using(API(baseURL: testBase, transport: stubs))
        let tagged = try await scope.readTagged(id: 1)
        try await tagged.delete()
        #expect(stubs.recorder.last?.headers["If-Match"] == #""abc""#)
        #expect(stubs.recorder.last?.headers["If-Unmodified-Since"] == nil)
    }
}
