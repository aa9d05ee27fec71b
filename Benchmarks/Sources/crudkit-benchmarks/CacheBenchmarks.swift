import CRUDKit
import CRUDKitTesting
import Foundation

/// Repeated reads of an unchanged resource (a 4 KB JSON list with an `ETag`) from the LoopbackServer through the
/// real `URLSessionTransport`: an API with a ``ResponseCache`` (every read after the first is a 304 with no body,
/// answered from the cache) beside the same API without one, in the same run. Then 64 identical reads at once,
/// with request coalescing (one request) and without (64). Returns whether the byte saving was made.
func runCacheBenchmarks(_ options: BenchmarkOptions) async throws -> Bool {
    printSuiteHeader("Response cache and coalescing (URLSessionTransport → LoopbackServer)")
    let body = sampleBody()
    let etag = "\"people-v1\""
    let server = LoopbackServer(
        recordsRequests: false,
        synchronousHandler: { request in
            if request.headers["If-None-Match"] == etag {
                return .response(HTTPResponse(status: 304, headers: ["ETag": etag]))
            }
            return .response(
                HTTPResponse(status: 200, headers: ["Content-Type": "application/json", "ETag": etag], body: body))
        })
    try server.start()
    defer { server.stop() }

    let counted = CountingTransport(URLSessionTransport())
    let plain = API(baseURL: server.baseURL, transport: counted)
    let cached = plain.with { $0.middleware.insert(CacheMiddleware(ResponseCache())) }
    let iterations = options.iterations(3_000)

    var sink = 0
    _ = try await cached.get("people", as: [BenchRow].self)  // the first read fills the cache
    await counted.reset()
    let withCache = try await nanosecondsPerIteration(iterations: iterations) {
        sink &+= try await cached.get("people", as: [BenchRow].self).count
    }
    let cachedBytes = await counted.bytesPerResponse
    await counted.reset()
    let withoutCache = try await nanosecondsPerIteration(iterations: iterations) {
        sink &+= try await plain.get("people", as: [BenchRow].self).count
    }
    let plainBytes = await counted.bytesPerResponse
    if sink == 42 { print("") }  // keeps the work from being optimised away

    report(
        "read unchanged \(body.count / 1024) KB JSON, decode", ours: withCache / 1000, baseline: withoutCache / 1000,
        baselineName: "the same API without a cache (200 with the whole body every time)", unit: .microseconds,
        target: nil)
    report(
        "  same, as reads per second", ours: 1e9 / withCache, baseline: 1e9 / withoutCache,
        baselineName: "the same API without a cache", unit: .requestsPerSecond, target: nil)
    let bytesMet = reportBytes(
        "  bytes received per read (head + body)", ours: cachedBytes, baseline: plainBytes, target: 0.25)

    // 64 identical reads at once, coalesced into one request or sent one by one.
    let coalescing = plain
    let separate = plain.with { $0.middleware.removeAll(named: .coalescing) }
    let batches = options.iterations(300)
    await counted.reset()
    let together = try await nanosecondsPerIteration(iterations: batches) {
        sink &+= try await readAtOnce(64, coalescing)
    }
    let togetherRequests = Double(await counted.responses) / Double(batches * 5)
    await counted.reset()
    let apart = try await nanosecondsPerIteration(iterations: batches) {
        sink &+= try await readAtOnce(64, separate)
    }
    let apartRequests = Double(await counted.responses) / Double(batches * 5)
    report(
        "64 identical reads at once (coalesced)", ours: together / 1000, baseline: apart / 1000,
        baselineName: "without CoalescingMiddleware: 64 requests", unit: .microseconds, target: nil)
    print(
        "    requests sent per batch of 64: \(String(format: "%.1f", togetherRequests)) coalesced, "
            + "\(String(format: "%.1f", apartRequests)) without")
    return bytesMet
}

/// Sends `count` identical reads at the same moment and returns how many rows they decoded in all.
private func readAtOnce(_ count: Int, _ api: API) async throws -> Int {
    try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<count { group.addTask { try await api.get("people", as: [BenchRow].self).count } }
        return try await group.reduce(0, +)
    }
}

/// Prints a bytes figure in the table's layout (the harness has no bytes unit); lower is better.
private func reportBytes(_ name: String, ours: Double, baseline: Double, target: Double) -> Bool {
    let ratio = baseline > 0 ? ours / baseline : 0
    let met = ratio <= target
    print(
        name.padding(toLength: 46, withPad: " ", startingAt: 0) + "  "
            + String(format: "%12.0f  %12.0f  ", ours, baseline) + "B/read" + String(format: "  %6.2f×", ratio)
            + "  ≤ " + String(format: "%.2f×", target) + (met ? "  met" : "  MISSED"))
    print("    baseline: the same API without a cache")
    return met
}

/// Thirty people with a few fields each: a little over 4 KB of JSON.
private func sampleBody() -> Data {
    let rows = (1...30).map { id in
        #"{"id": \#(id), "first_name": "Person \#(id)", "last_name": "Example", "#
            + #""email": "person\#(id)@example.com", "favorite_color": "green", "bio": "\#(String(repeating: "b", count: 40))"}"#
    }
    return Data(("[" + rows.joined(separator: ", ") + "]").utf8)
}

/// One row of the sample body.
private struct BenchRow: Decodable, Sendable {
    var id: Int
    var firstName: String
    var lastName: String
    var email: String
    var favoriteColor: String
    var bio: String
}

/// Wraps a transport and counts the responses and the bytes they brought (status line, headers and body).
private final class CountingTransport: Transport {
    private let base: any Transport
    private let tally = Tally()

    init(_ base: any Transport) { self.base = base }

    var responses: Int { get async { await tally.responses } }
    var bytesPerResponse: Double {
        get async {
            let (responses, bytes) = (await tally.responses, await tally.bytes)
            return responses == 0 ? 0 : Double(bytes) / Double(responses)
        }
    }

    func reset() async { await tally.reset() }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await base.send(request)
        let head = 17 + response.headers.reduce(2) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        await tally.add(bytes: head + response.body.count)
        return response
    }
}

/// The counts of a ``CountingTransport``.
private actor Tally {
    private(set) var responses = 0
    private(set) var bytes = 0

    func add(bytes count: Int) {
        responses += 1
        bytes += count
    }

    func reset() {
        responses = 0
        bytes = 0
    }
}
