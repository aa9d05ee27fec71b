import Foundation
import Testing

@testable import CRUDKit

/// What the response cache holds follows its limits, however many responses went through it.
@Suite struct ResponseCacheMemoryTests {
    /// A request for `/items/<n>` and a storable answer of about `size` bytes.
    private static func exchange(_ n: Int, size: Int) -> (HTTPRequest, HTTPResponse) {
        let request = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/items/\(n)")!)
        let response = HTTPResponse(status: 200, headers: ["ETag": "\"\(n)\""], body: Data(count: size))
        return (request, response)
    }

    @Test func evictingInsertsKeepTheRecencyRecordsWithinTheEntries() async throws {
        // Given a cache of 100 entries that evicts one entry for every one stored once full
        let cache = ResponseCache(byteLimit: 1 << 20, entryLimit: 100)
        var peak = 0
        // When 20,000 distinct URLs go through it (the old compaction, counting only the pairs after the eviction
        // point, kept one record per URL ever seen: about 20,000 here)
        for n in 0..<20_000 {
            let (request, response) = Self.exchange(n, size: 100)
            _ = try await cache.response(for: request) { _ in response }
            if n % 100 == 99 { peak = max(peak, cache.storage.withLock { $0.footprint }) }
        }
        // Then what it keeps for recency stays a small constant times its entries, never the URLs it has seen
        let entries = cache.count
        #expect(entries == 100)
        #expect(peak <= 2 * entries + 16, "recency records peaked at \(peak) for \(entries) entries")
    }

    @Test func lookupsOfOneEntryKeepTheRecencyRecordsWithinTheEntries() async throws {
        let cache = ResponseCache(entryLimit: 10)
        let (request, response) = Self.exchange(1, size: 10)
        _ = try await cache.response(for: request) { _ in response }
        for _ in 0..<20_000 { _ = cache.storage.withLock { $0.entry(for: ResponseCache.Key(request)) } }
        #expect(cache.storage.withLock { $0.footprint } <= 2 * cache.count + 64)
    }

    /// An entry keeps the request headers it is filed under (`Cookie`, `Authorization`, API keys) and the values its
    /// `Vary` names: they count against the byte limit like the response. Before, a 16 KiB `Cookie` (a server may set
    /// 50 cookies of 4 KiB for one domain) went uncounted, so a 64 KiB cache held 100 entries and 1.6 MB of them
    /// while it reported about 5 KB.
    @Test func theRequestHeadersAnEntryKeepsCountAgainstTheByteLimit() async throws {
        let cache = ResponseCache(byteLimit: 64 << 10, entryLimit: 1000)
        let cookie = String(repeating: "c", count: 16 << 10)
        for n in 0..<100 {
            var (request, response) = Self.exchange(n, size: 10)
            request.headers["Cookie"] = "session=\(cookie)\(n)"
            request.headers["X-Api-Key"] = "key-\(n)"
            request.headers["X-Tenant"] = String(repeating: "t", count: 1000)
            response.headers["Vary"] = "X-Tenant"
            _ = try await cache.response(for: request) { _ in response }
        }
        #expect(cache.count >= 1)
        #expect(cache.count <= 3, "\(cache.count) entries of more than 16 KiB each in a 64 KiB cache")
        #expect(cache.totalBytes >= cache.count * (cookie.utf8.count + 1000))
        #expect(cache.totalBytes <= cache.byteLimit)
    }
}
