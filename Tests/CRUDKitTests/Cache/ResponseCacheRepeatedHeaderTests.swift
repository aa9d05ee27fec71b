import Foundation
import Testing

@testable import CRUDKit

/// A response is served only to a request that sends every field of the headers it was filed under: a header sent
/// as several fields (`Cookie` split in two, as HTTP/2 allows and a middleware that adds one does) counts with all
/// of them, and so does a header the response's `Vary` names. Before, only the first field counted: a request with
/// another user's second `Cookie` field was revalidated with the stored `ETag` and, on a 304, served the stored body.
@Suite struct ResponseCacheRepeatedHeaderTests {
    private static let url = URL(string: "https://api.example.com/v1/me")!

    /// A `GET /me` with `Cookie: theme=dark` and then `extra` as a second `Cookie` field (and `X-Tenant` fields).
    private static func request(cookie extra: String, tenants: [String] = []) -> HTTPRequest {
        var request = HTTPRequest(method: .get, url: url)
        request.headers.add(name: "Cookie", value: "theme=dark")
        request.headers.add(name: "Cookie", value: extra)
        for tenant in tenants { request.headers.add(name: "X-Tenant", value: tenant) }
        return request
    }

    /// A server whose `ETag` is the record's version: both users' records are at version 3.
    private static func answer(_ request: HTTPRequest, vary: String? = nil) -> HTTPResponse {
        if request.headers["If-None-Match"] == "\"3\"" { return HTTPResponse(status: 304, headers: ["ETag": "\"3\""]) }
        let user = request.headers.values(for: "Cookie").joined(separator: "; ")
        var headers: HTTPHeaders = ["ETag": "\"3\""]
        if let vary { headers["Vary"] = vary }
        return HTTPResponse(status: 200, headers: headers, body: Data(user.utf8))
    }

    @Test func anotherUsersSecondCookieFieldIsNotServedTheStoredBody() async throws {
        let cache = ResponseCache()
        let ada = try await cache.response(for: Self.request(cookie: "session=ada")) { Self.answer($0) }
        var sent: [HTTPRequest] = []
        let bob = try await cache.response(for: Self.request(cookie: "session=bob")) { request in
            sent.append(request)
            return Self.answer(request)
        }
        #expect(String(decoding: ada.body, as: UTF8.self) == "theme=dark; session=ada")
        #expect(String(decoding: bob.body, as: UTF8.self) == "theme=dark; session=bob")
        #expect(sent.map { $0.headers["If-None-Match"] } == [nil])
        // Each user's own read is still revalidated.
        var again: [HTTPRequest] = []
        let adaAgain = try await cache.response(for: Self.request(cookie: "session=ada")) { request in
            again.append(request)
            return Self.answer(request)
        }
        #expect(again.map { $0.headers["If-None-Match"] } == ["\"3\""])
        #expect(String(decoding: adaAgain.body, as: UTF8.self) == "theme=dark; session=ada")
    }

    @Test func aVariedHeaderCountsWithEveryField() async throws {
        let cache = ResponseCache()
        let first = Self.request(cookie: "session=ada", tenants: ["eu", "ada"])
        _ = try await cache.response(for: first) { Self.answer($0, vary: "X-Tenant") }
        let other = Self.request(cookie: "session=ada", tenants: ["eu", "bob"])
        #expect(cache.storedResponse(for: first) != nil)
        #expect(cache.storedResponse(for: other) == nil)
    }
}
