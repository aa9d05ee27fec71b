import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// A `304` that confirms the stored response but says it may no longer be stored (`Cache-Control: no-store`, or
/// `Vary: *`) is served once and then forgotten: the merged response is stored by the same rules as a `200`.
@Suite struct CacheRevalidationNoStoreTests {
    @Test(arguments: [["Cache-Control": "no-store"], ["Vary": "*"]])
    func a304ThatForbidsStoringRemovesTheEntry(notModified: [String: String]) async throws {
        let count = Locked(0)
        let transport = StubTransport().on(nil, "**") { _ in
            let number = count.withLock { count -> Int in
                count += 1
                return count
            }
            if number == 1 { return .json(text: #"{"v": 1}"#, headers: ["ETag": "\"v1\""]) }
            var headers: HTTPHeaders = ["ETag": "\"v1\""]
            for (name, value) in notModified { headers[name] = value }
            return .status(304, headers: headers)
        }
        let cache = ResponseCache()
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware.insert(CacheMiddleware(cache)) }
        _ = try await api.get("people/1")
        #expect(cache.count == 1)

        let second = try await api.get("people/1")

        #expect(String(decoding: second.body, as: UTF8.self) == #"{"v": 1}"#)
        // Before: the entry stayed (now carrying the 304's `no-store`), and the body was kept and revalidated again.
        #expect(cache.count == 0)
        _ = try? await api.get("people/1")
        #expect(transport.recorder.requests.last?.header("If-None-Match") == nil)
    }
}
