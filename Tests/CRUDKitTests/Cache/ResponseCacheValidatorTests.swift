import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// A 304 refreshes a stored response only when it names the same representation (RFC 9111 §4.3.4, issue 28 item 6).
@Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct ResponseCacheValidatorTests {
    /// Version 1 first; from then on the server is at version 2 and answers every conditional request with a 304
    /// carrying `notModified` (a server that compares nothing), an unconditional one with version 2.
    static func transport(notModified: [String: String]) -> StubTransport {
        let count = Locked(0)
        return StubTransport().on(nil, "**") { request in
            let number = count.withLock { count -> Int in
                count += 1
                return count
            }
            if number == 1 {
                return .json(
                    text: #"{"v": 1}"#,
                    headers: ["ETag": "\"v1\"", "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"])
            }
            if request.recorded.header("If-None-Match") != nil || request.recorded.header("If-Modified-Since") != nil {
                var headers = HTTPHeaders()
                for (name, value) in notModified { headers[name] = value }
                return .status(304, headers: headers)
            }
            return .json(
                text: #"{"v": 2}"#, headers: ["ETag": "\"v2\"", "Last-Modified": "Mon, 07 Nov 1994 08:49:37 GMT"])
        }
    }

    @Test(arguments: [
        ["ETag": "\"v2\""], ["ETag": "W/\"v2\""], ["ETag": "\"v2\"", "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"],
        ["Last-Modified": "Mon, 07 Nov 1994 08:49:37 GMT"],
    ])
    func a304NamingAnotherRepresentationDoesNotRefreshTheStoredOne(notModified: [String: String]) async throws {
        let transport = Self.transport(notModified: notModified)
        let cache = ResponseCache()
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware.insert(CacheMiddleware(cache)) }
        _ = try await api.get("people/1")
        let second = try await api.get("people/1")

        #expect(String(decoding: second.body, as: UTF8.self) == #"{"v": 2}"#)
        #expect(second.headers["ETag"] == "\"v2\"")
        // The stored response is now version 2: the next read revalidates it, and the server's 304 confirms it.
        let third = try await api.get("people/1")
        #expect(String(decoding: third.body, as: UTF8.self) == #"{"v": 2}"#)
        let sent = transport.recorder.requests.map { $0.header("If-None-Match") ?? "-" }
        #expect(sent == ["-", "\"v1\"", "-", "\"v2\""])
        #expect(cache.count == 1)
    }

    @Test(arguments: [
        ["ETag": "\"v1\""], ["ETag": "W/\"v1\""], [:], ["Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"],
    ])
    func a304ConfirmingTheStoredRepresentationServesIt(notModified: [String: String]) async throws {
        let transport = Self.transport(notModified: notModified)
        let api = API(baseURL: testBase, transport: transport).with {
            $0.middleware.insert(CacheMiddleware(ResponseCache()))
        }
        _ = try await api.get("people/1")
        let second = try await api.get("people/1")

        #expect(String(decoding: second.body, as: UTF8.self) == #"{"v": 1}"#)
        #expect(second.status == 200)
        #expect(transport.recorder.requests.count == 2)
    }
}
