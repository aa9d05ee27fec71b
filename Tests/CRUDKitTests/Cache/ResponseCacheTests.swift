import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// The response cache's rules, on an in-process transport.
@Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct ResponseCacheTests {
    /// Answers every `GET` with 304 when `If-None-Match` is the resource's tag, else 200 with `ETag: "t"`.
    let transport = StubTransport().on(nil, "**") { request in
        if request.recorded.header("If-None-Match") == "\"t\"" {
            return .status(304, headers: ["ETag": "\"t\"", "Content-Length": "0", "Date": "later"])
        }
        return .json(
            text: #"{"path": "\#(request.request.url.path)"}"#,
            headers: ["ETag": "\"t\"", "Content-Length": "99", "Date": "first"])
    }

    private func api(_ cache: ResponseCache, headers: HTTPHeaders = [:]) -> API {
        API(baseURL: testBase, headers: headers, transport: transport).with {
            $0.middleware.insert(CacheMiddleware(cache))
        }
    }

    private var conditionalReads: [Bool] { transport.recorder.requests.map { $0.header("If-None-Match") != nil } }

    @Test func a304MergesItsHeadersButNotItsFraming() async throws {
        let api = api(ResponseCache())
        _ = try await api.get("people/1")
        let second = try await api.get("people/1")
        #expect(conditionalReads == [false, true])
        #expect(second.status == 200)
        #expect(second.headers["Date"] == "later")
        #expect(second.headers["Content-Length"] == "99")
        #expect(String(decoding: second.body, as: UTF8.self) == #"{"path": "/v1/people/1"}"#)
    }

    @Test func theLeastRecentlyUsedGoWhenTheEntryLimitIsReached() async throws {
        let cache = ResponseCache(entryLimit: 2)
        let api = api(cache)
        for path in ["a", "b", "a", "c", "a", "b"] { _ = try await api.get(path) }
        // a, b stored; a used; c evicts b; a revalidated; b sent afresh (and evicts c).
        #expect(conditionalReads == [false, false, true, false, true, false])
        #expect(cache.count == 2)
    }

    @Test func responsesAreKeptPerCredentialAndLanguage() async throws {
        let cache = ResponseCache()
        _ = try await api(cache, headers: ["Authorization": "Bearer alice"]).get("me")
        _ = try await api(cache, headers: ["Authorization": "Bearer bob"]).get("me")
        _ = try await api(cache, headers: ["Authorization": "Bearer alice", "Accept-Language": "fr"]).get("me")
        _ = try await api(cache, headers: ["Authorization": "Bearer alice"]).get("me")
        #expect(conditionalReads == [false, false, false, true])
        #expect(cache.count == 3)
    }

    /// Every header that carries a credential keeps users apart, not only `Authorization` and `Cookie`: an API key,
    /// a `TokenRefresher`'s own header, a header named like a secret (by the API's `Redaction` too). With a tag the
    /// server gives every user's version 1 (`"t"` here), bob was served alice's stored body on the 304.
    @Test(arguments: ["X-API-Key", "X-Auth-Token", "X-Tenant-Secret", "Proxy-Authorization"])
    func responsesAreKeptPerCredentialInAnyHeader(header: String) async throws {
        let cache = ResponseCache()
        let alice = try await api(cache, headers: [header: "alice-key"]).get("me", headers: ["X-Trace": "1"])
        let bob = try await api(cache, headers: [header: "bob-key"]).get("me", headers: ["X-Trace": "2"])
        _ = try await api(cache, headers: [header: "alice-key"]).get("me", headers: ["X-Trace": "3"])
        #expect(conditionalReads == [false, false, true], "\(header) did not separate the users")
        #expect(cache.count == 2)
        #expect(alice.status == 200 && bob.status == 200)
    }

    /// A header marked sensitive on the request (what a custom credential middleware does), and one named by the
    /// API's own secret words, separate entries too.
    @Test func responsesAreKeptPerSensitiveHeader() async throws {
        let cache = ResponseCache()
        let words = Redaction(secretNames: Redaction.defaultSecretNames.union(["pin"]))
        for pin in ["1111", "2222", "1111"] {
            _ = try await api(cache, headers: ["X-Card-Pin": pin]).with { $0.redaction = words }.get("me")
        }
        for user in ["alice", "bob", "alice"] {
            var request = HTTPRequest(url: testBase.appendingPathComponent("us"), headers: ["X-User": user])
            request.sensitiveHeaderNames = ["x-user"]
            _ = try await api(cache).send(request)
        }
        #expect(conditionalReads == [false, false, true, false, false, true])
    }

    @Test func varyNamesMoreHeadersThatMustMatch() async throws {
        let transport = StubTransport().on(
            nil, "**", .json(text: "{}", headers: ["ETag": "\"t\"", "Vary": "X-Tenant, Accept-Encoding"]))
        let cache = ResponseCache()
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware.insert(CacheMiddleware(cache)) }
        _ = try await api.get("a", headers: ["X-Tenant": "1"])
        _ = try await api.get("a", headers: ["X-Tenant": "2"])
        _ = try await api.get("a", headers: ["X-Tenant": "2"])
        #expect(transport.recorder.requests.map { $0.header("If-None-Match") != nil } == [false, false, true])
        let star = StubTransport().on(nil, "**", .json(text: "{}", headers: ["ETag": "\"t\"", "Vary": "*"]))
        let starCache = ResponseCache()
        _ = try await API(baseURL: testBase, transport: star).with { $0.middleware.insert(CacheMiddleware(starCache)) }
            .get("a")
        #expect(starCache.count == 0)
    }

    @Test func responsesWithoutValidatorsOrWithNoStoreAreNotKept() async throws {
        let transport = StubTransport()
            .on(nil, "**", .json(text: "{}", headers: ["ETag": "\"t\""]))
            .on(nil, "plain", .json(text: "{}"))
            .on(nil, "partial", .json(text: "{}", status: 206, headers: ["ETag": "\"t\""]))
        let cache = ResponseCache()
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware.insert(CacheMiddleware(cache)) }
        _ = try await api.get("plain")
        _ = try await api.get("partial")
        _ = try await api.get("tagged", headers: ["Cache-Control": "no-store"])
        _ = try await api.post("tagged")
        #expect(cache.count == 0)
        _ = try await api.get("tagged")
        #expect(cache.count == 1)
    }

    @Test func aCallersOwnConditionalRequestIsLeftAlone() async throws {
        let api = api(ResponseCache())
        _ = try await api.get("people/1")
        let error = await crudError { try await api.get("people/1", headers: ["If-None-Match": "\"t\""]) }
        // The caller asked for a 304 and gets it, as a status, not the stored body.
        #expect(error?.caseName == "httpStatus(304)")
    }

    @Test func a404ForgetsTheStoredResponse() async throws {
        let gone = Locked(false)
        let transport = StubTransport().on(nil, "**") { _ in
            gone.withLock { $0 }
                ? .json(text: "{}", status: 404) : .json(text: "{}", headers: ["ETag": "\"t\""])
        }
        let cache = ResponseCache()
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware.insert(CacheMiddleware(cache)) }
        _ = try await api.get("people/1")
        #expect(cache.count == 1)
        gone.withLock { $0 = true }
        _ = await crudError { try await api.get("people/1") }
        #expect(cache.count == 0)
    }

    @Test func aCreateInvalidatesTheLocationItAnswersWith() async throws {
        let transport = StubTransport()
            .on(nil, "**", .json(text: "{}", headers: ["ETag": "\"t\""]))
            .on(.post, "**", .json(text: "{}", status: 201, headers: ["Location": "/v1/people/9/"]))
        let cache = ResponseCache()
        let api = API(baseURL: testBase, transport: transport).with { $0.middleware.insert(CacheMiddleware(cache)) }
        _ = try await api.get("people/9")
        _ = try await api.get("teams/3")
        try await api.post("people/9/activate")
        // people/9/activate, its parent people/9, and the Location people/9/ name the same resource.
        #expect(cache.count == 1)
        _ = try await api.get("people/9")
        // A create in a collection forgets the collection and its Location, not the other members.
        try await api.post("teams")
        #expect(cache.count == 1)
        let accept: HTTPHeaders = ["Accept": "application/json"]
        let person = HTTPRequest(url: testBase.appendingPathComponent("people/9"), headers: accept)
        let team = HTTPRequest(url: testBase.appendingPathComponent("teams/3"), headers: accept)
        #expect(cache.storedResponse(for: person) == nil)
        #expect(cache.storedResponse(for: team) != nil)
    }

    @Test func aReadInFlightDuringAWriteDoesNotStoreItsAnswer() async throws {
        let gate = GateTransport { request in
            request.method == .get
                ? jsonResponse("{}", headers: ["ETag": "\"t\""]) : jsonResponse("{}")
        }
        let cache = ResponseCache()
        let api = API(baseURL: testBase, transport: gate).with { $0.middleware.insert(CacheMiddleware(cache)) }
        let read = Task { try await api.get("people/1") }
        await gate.arrivals.wait(until: 1)
        let write = Task { try await api.delete("people/1") }
        await gate.arrivals.wait(until: 2)
        gate.release { $0.method == .delete }
        _ = try await write.value
        gate.release()
        _ = try await read.value
        #expect(cache.count == 0)
    }

    @Test func coalescedReadsShareOneRevalidation() async throws {
        let gate = GateTransport { request in
            request.headers["If-None-Match"] == "\"t\""
                ? HTTPResponse(status: 304) : jsonResponse(adaJSON, headers: ["ETag": "\"t\""])
        }
        let api = API(baseURL: testBase, transport: gate).with {
            $0.middleware.insert(CacheMiddleware(ResponseCache()))
        }
        let first = Task { try await api.get("people/1", as: StubPerson.self) }
        await gate.arrivals.wait(until: 1)
        gate.release { _ in true }
        _ = try await first.value
        // When ten reads overlap
        let readers = (0..<10).map { _ in Task { try await api.get("people/1", as: StubPerson.self) } }
        await waitUntil { api.coalescer.waitingCallers == 10 }
        await gate.arrivals.wait(until: 2)
        gate.release()
        // Then one conditional request serves them all from the cache
        for reader in readers { #expect(try await reader.value.firstName == "Ada") }
        #expect(gate.requests.map { $0.headers["If-None-Match"] } == [nil, "\"t\""])
    }

    @Test func pathsIgnoreQueryAndTrailingSlash() throws {
        let one = try #require(URL(string: "HTTPS://API.example.com:8443/v1/people/12/?page=2"))
        #expect(ResponseCache.path(of: one) == "https://api.example.com:8443/v1/people/12")
        #expect(
            ResponseCache.parent(of: "https://api.example.com:8443/v1/people/12")
                == "https://api.example.com:8443/v1/people")
        #expect(ResponseCache.parent(of: "https://api.example.com") == nil)
    }
}
