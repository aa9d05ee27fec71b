import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// One `ResponseCache` shared by two APIs whose cookie jars hold different users' sessions: each user's entry is
/// keyed on the cookies that user's jar sends, so neither is ever served the other's body (before: the jar's cookies
/// were added after the cache had chosen, so Bob's read revalidated Ada's entry and a `304` served him Ada's body).
@Suite struct CacheCookieJarTests {
    @Test func aSharedCacheNeverServesOneJarsSessionToAnother() async throws {
        let transport = StubTransport().on(nil, "**") { request in
            let session = request.request.headers["Cookie"] ?? "none"
            if request.request.headers["If-None-Match"] == "\"3\"" { return .status(304, headers: ["ETag": "\"3\""]) }
            return .json(text: #"{"user": "\#(session)"}"#, headers: ["ETag": "\"3\""])
        }
        let cache = ResponseCache()
        func api(_ session: String) -> API {
            API(baseURL: testBase, transport: transport).with {
                $0.cookieJar.store(setCookieHeaders: ["session=\(session)"], for: testBase)
                $0.middleware.insert(CacheMiddleware(cache))
            }
        }
        let ada = api("ada")
        let bob = api("bob")
        let adas = try await ada.get("me")
        let bobs = try await bob.get("me")
        let adasAgain = try await ada.get("me")

        #expect(String(decoding: adas.body, as: UTF8.self) == #"{"user": "session=ada"}"#)
        #expect(String(decoding: bobs.body, as: UTF8.self) == #"{"user": "session=bob"}"#)
        #expect(String(decoding: adasAgain.body, as: UTF8.self) == #"{"user": "session=ada"}"#)
        let sent = transport.recorder.requests.map {
            ($0.header("Cookie") ?? "-") + "/" + ($0.header("If-None-Match") ?? "-")
        }
        #expect(sent == ["session=ada/-", "session=bob/-", "session=ada/\"3\""])
        #expect(cache.count == 2)
    }
}
