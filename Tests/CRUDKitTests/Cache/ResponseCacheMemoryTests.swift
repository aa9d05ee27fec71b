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
}
