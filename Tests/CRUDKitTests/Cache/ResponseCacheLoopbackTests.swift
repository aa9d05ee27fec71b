import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// A resource on the loopback server that answers conditional requests as a real server would.
private final class VersionedResource: Sendable {
    struct State {
        var bodies: [String: String] = [:]
        var versions: [String: Int] = [:]
        var notModified = 0
    }
    let state = Locked(State())
    /// Whether answers carry `ETag` (otherwise only `Last-Modified`).
    let usesETags: Bool
    /// Extra headers sent with every answer.
    let extraHeaders: HTTPHeaders

    init(usesETags: Bool = true, extraHeaders: HTTPHeaders = [:]) {
        self.usesETags = usesETags
        self.extraHeaders = extraHeaders
    }

    func set(_ path: String, _ body: String) {
        state.withLock { state in
            state.bodies[path] = body
            state.versions[path, default: 0] += 1
        }
    }

    var notModifiedCount: Int { state.withLock { $0.notModified } }

    func reply(_ request: LoopbackRequest) -> LoopbackReply {
        if request.method != "GET" {
            set(request.path, request.text)
            return .response(jsonResponse(request.text))
        }
        let current = state.withLock { state in
            state.bodies[request.path].map { ($0, state.versions[request.path] ?? 0) }
        }
        guard let (body, version) = current else { return .response(jsonResponse("{}", status: 404)) }
        let etag = "\"v\(version)\""
        // One validator per version: a day apart, in the IMF-fixdate form servers send.
        let lastModified = "Tue, 0\(version) Jan 2030 10:00:00 GMT"
        var validators: HTTPHeaders = usesETags ? ["ETag": etag] : ["Last-Modified": lastModified]
        validators = validators.merging(extraHeaders)
        let fresh =
            usesETags
            ? request.headers["If-None-Match"] == etag : request.headers["If-Modified-Since"] == lastModified
        if fresh {
            state.withLock { $0.notModified += 1 }
            return .response(HTTPResponse(status: 304, headers: validators.merging(["X-Revalidated": "yes"])))
        }
        return .response(jsonResponse(body, headers: validators))
    }
}

extension NetworkTests {
    /// The response cache over the real `URLSessionTransport` and a loopback server.
    @Suite struct ResponseCacheLoopbackTests {
        private func start(_ resource: VersionedResource) throws -> LoopbackServer {
            let server = LoopbackServer { request in resource.reply(request) }
            try server.start()
            return server
        }

        private func api(_ server: LoopbackServer, cache: ResponseCache = ResponseCache()) -> API {
            API(baseURL: server.baseURL, transport: URLSessionTransport()).with {
                $0.middleware.insert(CacheMiddleware(cache))
            }
        }

        @Test func aSecondReadRevalidatesAndIsServedFromTheCacheOn304() async throws {
            // Given
            let resource = VersionedResource()
            resource.set("/people/1", adaJSON)
            let server = try start(resource)
            defer { server.stop() }
            let api = api(server)
            // When
            let first = try await api.get("people/1", as: StubPerson.self)
            let second = try await api.get("people/1")
            // Then
            #expect(first.firstName == "Ada")
            #expect(server.requests.map { $0.headers["If-None-Match"] } == [nil, "\"v1\""])
            #expect(resource.notModifiedCount == 1)
            #expect(second.status == 200)
            #expect(second.body == Data(adaJSON.utf8))
            #expect(second.headers["X-Revalidated"] == "yes")
            #expect(second.headers["Content-Type"] == "application/json")
            #expect(try api.configuration.coding.decode(StubPerson.self, from: second.body) == first)
        }

        @Test func aChangedResourceReplacesTheStoredBody() async throws {
            let resource = VersionedResource()
            resource.set("/people/1", adaJSON)
            let server = try start(resource)
            defer { server.stop() }
            let api = api(server)
            _ = try await api.get("people/1", as: StubPerson.self)
            resource.set("/people/1", #"{"id": 1, "firstName": "Grace", "lastName": "Hopper"}"#)
            let changed = try await api.get("people/1", as: StubPerson.self)
            let again = try await api.get("people/1", as: StubPerson.self)
            #expect(changed.firstName == "Grace")
            #expect(again.firstName == "Grace")
            #expect(server.requests.map { $0.headers["If-None-Match"] } == [nil, "\"v1\"", "\"v2\""])
            #expect(resource.notModifiedCount == 1)
        }

        @Test func lastModifiedIsRevalidatedWithIfModifiedSince() async throws {
            let resource = VersionedResource(usesETags: false)
            resource.set("/people/1", adaJSON)
            let server = try start(resource)
            defer { server.stop() }
            let api = api(server)
            _ = try await api.get("people/1", as: StubPerson.self)
            let second = try await api.get("people/1", as: StubPerson.self)
            #expect(second.firstName == "Ada")
            #expect(server.requests.last?.headers["If-Modified-Since"] == "Tue, 01 Jan 2030 10:00:00 GMT")
            #expect(server.requests.last?.headers["If-None-Match"] == nil)
            #expect(resource.notModifiedCount == 1)
        }

        @Test func noStoreResponsesAreNotKept() async throws {
            let resource = VersionedResource(extraHeaders: ["Cache-Control": "private, no-store"])
            resource.set("/people/1", adaJSON)
            let server = try start(resource)
            defer { server.stop() }
            let cache = ResponseCache()
            let api = api(server, cache: cache)
            _ = try await api.get("people/1", as: StubPerson.self)
            _ = try await api.get("people/1", as: StubPerson.self)
            #expect(server.requests.map { $0.headers["If-None-Match"] } == [nil, nil])
            #expect(cache.count == 0)
        }

        @Test func aWriteInvalidatesItsResourceAndItsCollection() async throws {
            let resource = VersionedResource()
            resource.set("/people/1", adaJSON)
            resource.set("/people/2", adaJSON)
            resource.set("/people", "[\(adaJSON)]")
            let server = try start(resource)
            defer { server.stop() }
            let cache = ResponseCache()
            let api = api(server, cache: cache)
            for path in ["people/1", "people/2", "people"] { _ = try await api.get(path) }
            #expect(cache.count == 3)
            // When
            try await api.put("people/1", body: .json(["firstName": "Ada"]))
            // Then /people/1 and /people are forgotten, /people/2 is not.
            #expect(cache.count == 1)
            for path in ["people/1", "people/2", "people"] { _ = try await api.get(path) }
            let reads = server.requests.suffix(3)
            #expect(reads.map { $0.headers["If-None-Match"] } == [nil, "\"v1\"", nil])
        }

        @Test func theLeastRecentlyUsedGoWhenTheByteLimitIsReached() async throws {
            let resource = VersionedResource()
            let big = "\"" + String(repeating: "x", count: 1000) + "\""
            for path in ["/a", "/b", "/c"] { resource.set(path, big) }
            let server = try start(resource)
            defer { server.stop() }
            // Room for two responses of about 1,150 bytes each, not three.
            let cache = ResponseCache(byteLimit: 2600)
            let api = api(server, cache: cache)
            for path in ["a", "b", "a", "c"] { _ = try await api.get(path) }
            #expect(cache.count == 2)
            #expect(cache.totalBytes <= 2600)
            // b was the least recently used, so it went when c came.
            for path in ["a", "c", "b"] { _ = try await api.get(path) }
            let reads = server.requests.suffix(3)
            #expect(reads.map { $0.headers["If-None-Match"] != nil } == [true, true, false])
        }
    }
}
