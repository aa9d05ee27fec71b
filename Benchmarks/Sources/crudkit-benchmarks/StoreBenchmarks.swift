import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import Foundation

/// What a ``ResponseCache`` lookup and insert and a ``CookieJar`` store and lookup cost as they fill: each figure
/// must stay flat however many entries (or hosts) there are.
///
/// - Cache lookup: ``ResponseCache/storedResponse(for:)`` of a stored `GET`, cycling through all N keys; baseline:
///   a `[String: HTTPResponse]` holding the same N responses, looked up by the same requests' `url.absoluteString`.
/// - Cache insert: a `GET` answered with a storable 200 through ``CacheMiddleware`` (the public path an API takes)
///   into a cache full at N entries, so every insert also evicts the least recently used; baseline: the same
///   dictionary inserting the new key and removing the one inserted N steps before (so it stays at N).
/// - Cookie jar: 3 cookies per host at 1, 100 and 1,000 hosts (1,000 hosts is the jar's 3,000-cookie limit);
///   a store replaces one host's cookie with a new value, a lookup builds one host's `Cookie` header; baseline:
///   the same operation on the jar with 1 host, in this run.
///
/// A smoke run uses sizes a hundred times smaller for the cache and few iterations.
func runStoreBenchmarks(_ options: BenchmarkOptions) async throws -> Bool {
    printSuiteHeader("Response cache and cookie jar as they fill (cost must stay flat)")
    var sink = 0
    let sizes = options.smoke ? [10, 100, 1_000] : [1_000, 10_000, 100_000]
    var firstLookup: Double?
    var firstInsert: Double?
    for size in sizes {
        // 2N distinct requests: inserting request k (cycling) always finds it evicted N inserts ago.
        let pool = (0..<(2 * size)).map { number in
            var request = HTTPRequest(url: URL(string: "https://api.example.com/items/\(number)")!)
            request.headers["Accept"] = "application/json"
            return request
        }
        let response = HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json", "ETag": "\"v1\""],
            body: Data(#"{"id": 1, "name": "item"}"#.utf8))
        let cache = ResponseCache(byteLimit: 1 << 30, entryLimit: size)
        let stage = CacheMiddleware(cache)
        let api = API(baseURL: URL(string: "https://api.example.com")!)
        let answer: MiddlewareNext = { _, _ in response }
        // One context for every call: what is measured is the stage and its cache, not building contexts.
        let context = MiddlewareContext(api: api, request: pool[0])
        for request in pool[0..<size] {
            _ = try await stage.intercept(request, context: context, next: answer)
        }
        var dictionary: [String: HTTPResponse] = [:]
        for request in pool[0..<size] { dictionary[request.url.absoluteString] = response }
        guard cache.count == size else {
            print("response cache: \(size) entries asked, \(cache.count) stored; not measured")
            continue
        }

        // Lookups, cycling through the N stored keys.
        let lookups = options.iterations(1_000_000)
        var next = 0
        let lookup = nanosecondsPerIteration(iterations: lookups, rounds: 3) {
            sink &+= cache.storedResponse(for: pool[next])?.status ?? 0
            next = next + 1 == size ? 0 : next + 1
        }
        next = 0
        let dictionaryLookup = nanosecondsPerIteration(iterations: lookups, rounds: 3) {
            sink &+= dictionary[pool[next].url.absoluteString]?.status ?? 0
            next = next + 1 == size ? 0 : next + 1
        }
        guard sink > 0 else { return false }
        let lookupBase = firstLookup ?? lookup
        firstLookup = lookupBase
        report(
            "response cache lookup, \(size) entries", ours: lookup, baseline: dictionaryLookup,
            baselineName: "[String: HTTPResponse] of the same \(size) keys; ours at \(sizes[0]): "
                + String(format: "%.0f ns (%.2f× here)", lookupBase, lookup / lookupBase),
            unit: .nanoseconds, target: nil)

        // Inserts into the full cache: each evicts the least recently used entry.
        let inserts = options.iterations(200_000)
        var inserted = size
        let insert = try await nanosecondsPerIteration(iterations: inserts, rounds: 3) {
            let request = pool[inserted % pool.count]
            inserted &+= 1
            sink &+= try await stage.intercept(request, context: context, next: answer).status
        }
        inserted = size
        let dictionaryInsert = nanosecondsPerIteration(iterations: inserts, rounds: 3) {
            dictionary[pool[inserted % pool.count].url.absoluteString] = response
            dictionary.removeValue(forKey: pool[(inserted - size) % pool.count].url.absoluteString)
            inserted &+= 1
        }
        guard cache.count == size, dictionary.count == size else {
            print("response cache: \(cache.count) entries after inserting, \(size) expected")
            return false
        }
        let insertBase = firstInsert ?? insert
        firstInsert = insertBase
        report(
            "response cache insert (evicting), \(size) entries", ours: insert, baseline: dictionaryInsert,
            baselineName: "[String: HTTPResponse] at \(size): insert one key, remove the oldest; ours at "
                + "\(sizes[0]): " + String(format: "%.0f ns (%.2f× here)", insertBase, insert / insertBase),
            unit: .nanoseconds, target: nil)
    }

    // The cookie jar: 3 cookies per host.
    var firstStore: Double?
    var firstHeader: Double?
    for hosts in [1, 100, 1_000] {
        let jar = CookieJar()
        let urls = (0..<hosts).map { URL(string: "https://h\($0).example.com/items")! }
        for url in urls {
            for name in 0..<3 { jar.store(setCookieHeaders: ["c\(name)=start; Path=/"], for: url) }
        }
        guard let header = jar.cookieHeader(for: urls[hosts - 1]), header.contains("c2=start") else {
            print("cookie jar: \(hosts) hosts not stored; not measured")
            return false
        }
        let values = (0..<64).map { ["c\($0 % 3)=value\($0); Path=/"] }
        let iterations = options.iterations(200_000)
        var turn = 0
        let store = nanosecondsPerIteration(iterations: iterations, rounds: 3) {
            jar.store(setCookieHeaders: values[turn & 63], for: urls[turn % hosts])
            turn &+= 1
        }
        turn = 0
        let lookup = nanosecondsPerIteration(iterations: iterations, rounds: 3) {
            sink &+= jar.cookieHeader(for: urls[turn % hosts])?.utf8.count ?? 0
            turn &+= 1
        }
        let storeBase = firstStore ?? store
        firstStore = storeBase
        let headerBase = firstHeader ?? lookup
        firstHeader = headerBase
        report(
            "cookie jar store, \(hosts) hosts (\(3 * hosts) cookies)", ours: store, baseline: storeBase,
            baselineName: "the same store with 1 host (3 cookies)", unit: .nanoseconds, target: nil)
        report(
            "cookie jar lookup, \(hosts) hosts (\(3 * hosts) cookies)", ours: lookup, baseline: headerBase,
            baselineName: "the same lookup with 1 host (3 cookies)", unit: .nanoseconds, target: nil)
    }
    if sink == 42 { print("") }  // keeps the work from being optimised away
    return true
}
