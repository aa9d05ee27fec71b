import CRUDKit
import CRUDKitTesting
import Foundation

/// How costs grow with size: each case at three sizes, per item (or MB/s), so a cost that grows faster than
/// linearly shows as a per-item figure that rises from row to row. The baseline of each row is the same case at
/// the smallest size, measured in this run: a ratio near 1× means linear. `all()` also reports how much the
/// resident set grew during the walk (peak minus start): `all()` streams, so that must not grow with the number
/// of pages. A smoke run uses sizes a hundred times smaller.
func runScalingBenchmarks(_ options: BenchmarkOptions) async throws -> Bool {
    printSuiteHeader("Costs at three sizes (baseline: the smallest size, same run)")
    let sizes = options.smoke ? [10, 100, 1_000] : [1_000, 10_000, 100_000]
    var sink = 0

    // all() over an InMemoryBackend collection, 100 items a page.
    var allBaseline: Double?
    for size in sizes {
        let backend = InMemoryBackend(style: InMemoryBackend.Style(pagination: .linkHeader(pageSize: 100)))
        backend.register("items")
        for number in 0..<size { backend.insert(["name": .string("item \(number)")], into: "items") }
        let api = API(baseURL: URL(string: "https://api.example.com")!, transport: backend)
        let before = residentKilobytes()
        resetPeakResident()
        let start = now()
        for try await item in ScaleItem.using(api).all() { sink &+= item.name.utf8.count }
        let perItem = Double(now() - start) / Double(size)
        let grown = max(0, peakResidentKilobytes() - before)
        let base = allBaseline ?? perItem
        allBaseline = base
        report(
            "all(): \(size) items, 100 a page", ours: perItem, baseline: base,
            baselineName: "all() over \(sizes[0]) items; RSS grew \(grown) kB during the walk", unit: .nanoseconds,
            target: nil)
    }

    // list() of one page holding every item.
    var listBaseline: Double?
    for size in sizes {
        let backend = InMemoryBackend()
        backend.register("items")
        for number in 0..<size { backend.insert(["name": .string("item \(number)")], into: "items") }
        let api = API(baseURL: URL(string: "https://api.example.com")!, transport: backend)
        let perItem =
            try await nanosecondsPerIteration(iterations: 1, rounds: 3) {
                sink &+= try await ScaleItem.using(api).list().count
            } / Double(size)
        let base = listBaseline ?? perItem
        listBaseline = base
        report(
            "list(): \(size) models in one answer", ours: perItem, baseline: base,
            baselineName: "list() of \(sizes[0]) models", unit: .nanoseconds, target: nil)
    }

    // Parsing a document of 1, 10 and 100 MB.
    var parseBaseline: Double?
    for megabytes in options.smoke ? [0.01, 0.1, 1] : [1.0, 10, 100] {
        let document = makeDocument(bytes: Int(megabytes * 1_000_000))
        let actual = Double(document.count) / 1_000_000
        let nanoseconds = try nanosecondsPerIteration(iterations: 1, rounds: 3) {
            sink &+= try (JSON(data: document).array ?? []).count
        }
        let speed = actual / (nanoseconds / 1e9)
        let base = parseBaseline ?? speed
        parseBaseline = base
        report(
            "JSON(data:) of \(String(format: "%.2f", actual)) MB", ours: speed, baseline: base,
            baselineName: "the smallest document", unit: .megabytesPerSecond, target: nil)
    }

    // Response cache lookups with 1k, 10k and 100k stored responses.
    var cacheBaseline: Double?
    for size in sizes {
        let cache = ResponseCache(byteLimit: 1 << 30, entryLimit: size)
        let transport = ETagTransport()
        let api = API(baseURL: URL(string: "https://api.example.com")!, transport: transport)
            .with { $0.middleware.insert(CacheMiddleware(cache)) }
        for number in 0..<size { _ = try await api.get("items/\(number)") as HTTPResponse }
        // The requests exactly as the API sent them (its Accept header is part of the cache's key).
        let requests = transport.received
        var hits = 0
        let lookups = options.iterations(1_000_000)
        let perLookup = nanosecondsPerIteration(iterations: lookups, rounds: 3) {
            hits &+= cache.storedResponse(for: requests[hits % size]) == nil ? 0 : 1
        }
        guard hits > 0, cache.count == size else {
            print("response cache: \(size) entries stored \(cache.count), \(hits) hits; lookup not measured")
            continue
        }
        let base = cacheBaseline ?? perLookup
        cacheBaseline = base
        report(
            "response cache lookup, \(size) entries", ours: perLookup, baseline: base,
            baselineName: "the same lookup with \(sizes[0]) entries", unit: .nanoseconds, target: nil)
    }
    if sink == 42 { print("") }  // keeps the work from being optimised away
    return true
}

/// The item the `all()` and `list()` rows read.
private struct ScaleItem: CRUDModel, Codable {
    static let path = "items"
    var id: Int?
    var name: String
}

/// Answers every request with a small JSON body and an `ETag`, so the cache stores it, and keeps the requests.
// Safety: `requests` is read and written only while `lock` is held.
private final class ETagTransport: Transport, @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [HTTPRequest] = []

    /// The requests received, in order.
    var received: [HTTPRequest] { lock.withLock { requests } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        lock.withLock { requests.append(request) }
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json", "ETag": "\"v1\""],
            body: Data(#"{"id": 1, "name": "item"}"#.utf8))
    }
}

/// A JSON array of small objects of about `bytes` bytes.
private func makeDocument(bytes: Int) -> Data {
    var text = "["
    text.reserveCapacity(bytes + 200)
    var number = 0
    while text.utf8.count < bytes {
        if number > 0 { text += "," }
        text += #"{"id":\#(number),"name":"item \#(number)","score":\#(Double(number) / 8),"tags":["a","b"]}"#
        number += 1
    }
    text += "]"
    return Data(text.utf8)
}

/// A field of `/proc/self/status` in kB (0 where there is none, as on macOS).
private func statusKilobytes(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.dropFirst(field.count + 1).split(separator: " ").first ?? "") ?? 0
    }
    return 0
}

private func residentKilobytes() -> Int { statusKilobytes("VmRSS") }
private func peakResidentKilobytes() -> Int { statusKilobytes("VmHWM") }

/// Resets the kernel's peak-resident figure to the current one (Linux: writing 5 to `clear_refs`).
private func resetPeakResident() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}
