import CRUDKit
import CRUDKitTesting
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP suite: requests per second of `URLSessionTransport` beside raw `URLSession` against the same
/// loopback server in the same run (nginx when `Benchmarks/nginx/start-nginx.sh` can start it, otherwise
/// CRUDKitTesting's `LoopbackServer`), sequential and with 64 requests in flight; then the same through the whole
/// `API` pipeline (`api.get`). Each figure is the median of
/// 11 rounds in which the two clients take turns (see `interleavedMedians`).
func runHTTPBenchmarks(_ options: BenchmarkOptions) async throws -> Bool {
    let server = try BenchmarkServer.start()
    defer { server.stop() }
    printSuiteHeader("HTTP (server: \(server.name), \(server.url.absoluteString))")

    let connections = 32
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = connections
    configuration.urlCache = nil
    let session = URLSession(configuration: configuration)
    defer { session.invalidateAndCancel() }
    let transport = URLSessionTransport(configuration: .init(maximumConnectionsPerHost: connections))
    let url = server.url.appendingPathComponent("people/1")
    var built = URLRequest(url: url)
    built.setValue("application/json", forHTTPHeaderField: "Accept")
    let urlRequest = built
    let request = HTTPRequest(url: url, headers: ["Accept": "application/json"])

    let raw: @Sendable () async throws -> Void = {
        let (_, response) = try await session.data(for: urlRequest)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
    }
    let ours: @Sendable () async throws -> Void = {
        guard try await transport.send(request).status == 200 else { throw URLError(.badServerResponse) }
    }
    // The whole pipeline: URL building, default headers, interceptors (none), status check, logging (off).
    // Coalescing is off so that every call really is a request, as for the baseline.
    let api = API(baseURL: server.url, transport: transport).with { $0.coalescesReads = false }
    let viaAPI: @Sendable () async throws -> Void = {
        guard try await api.get("people/1").status == 200 else { throw URLError(.badServerResponse) }
    }

    // Warm both clients (connections, lazy initialisation) before measuring.
    for _ in 0..<options.iterations(200) {
        try await raw()
        try await ours()
        try await viaAPI()
    }

    var met = true
    let rounds = options.smoke ? 1 : 11
    let sequential = try await interleavedMedians(rounds: rounds) {
        try await requestsPerSecond(total: options.iterations(1_000), inFlight: 1, raw)
    } _: {
        try await requestsPerSecond(total: options.iterations(1_000), inFlight: 1, ours)
    }
    met =
        report(
            "GET, sequential (URLSessionTransport)", ours: sequential.b, baseline: sequential.a,
            baselineName: "URLSession.data(for:) on the same server", unit: .requestsPerSecond, target: 0.95
        ) && met
    print("    \(sequential.spread)")

    let concurrent = try await interleavedMedians(rounds: rounds) {
        try await requestsPerSecond(total: options.iterations(3_200), inFlight: 64, raw)
    } _: {
        try await requestsPerSecond(total: options.iterations(3_200), inFlight: 64, ours)
    }
    met =
        report(
            "GET, 64 in flight (URLSessionTransport)", ours: concurrent.b, baseline: concurrent.a,
            baselineName: "URLSession.data(for:), 64 in flight, \(connections) connections per host",
            unit: .requestsPerSecond, target: 0.95
        ) && met
    print("    \(concurrent.spread)")
    for (label, inFlight, total) in [("sequential", 1, 1_000), ("64 in flight", 64, 3_200)] {
        let figures = try await interleavedMedians(rounds: rounds) {
            try await requestsPerSecond(total: options.iterations(total), inFlight: inFlight, raw)
        } _: {
            try await requestsPerSecond(total: options.iterations(total), inFlight: inFlight, viaAPI)
        }
        met =
            report(
                "GET, \(label) (API.get, whole pipeline)", ours: figures.b, baseline: figures.a,
                baselineName: "URLSession.data(for:) on the same server, \(inFlight) in flight",
                unit: .requestsPerSecond, target: 0.95
            ) && met
        print("    \(figures.spread)")
    }
    if let accepted = server.connectionsAccepted {
        print("    connections the server accepted over the whole suite: \(accepted)")
    }
    return met
}

/// The medians of two measurements taken in alternating rounds, and how their per-round ratio varied.
private struct InterleavedMedians {
    var a: Double
    var b: Double
    var ratios: [Double]

    /// One line on the spread of the per-round ratios b/a (the machine may be shared; the medians resist that).
    var spread: String {
        let sorted = ratios.sorted()
        guard let low = sorted.first, let high = sorted.last else { return "no rounds" }
        return String(
            format: "%d interleaved rounds; per-round ratio median %.2f×, range %.2f×–%.2f×",
            sorted.count, sorted[sorted.count / 2], low, high)
    }
}

/// Runs `a` and `b` in `rounds` rounds, alternating which goes first (ABBA…) so that a slow drift of the
/// machine's load weighs on both alike, and returns the median figure of each. The median, unlike the best
/// round, is not decided by a single quiet moment that only one side happened to get.
private func interleavedMedians(
    rounds: Int,
    _ a: () async throws -> Double,
    _ b: () async throws -> Double
) async throws -> InterleavedMedians {
    var figuresA: [Double] = []
    var figuresB: [Double] = []
    var ratios: [Double] = []
    for round in 0..<max(1, rounds) {
        let first: Double
        let second: Double
        if round % 2 == 0 {
            first = try await a()
            second = try await b()
        } else {
            second = try await b()
            first = try await a()
        }
        figuresA.append(first)
        figuresB.append(second)
        ratios.append(second / first)
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    return InterleavedMedians(a: median(figuresA), b: median(figuresB), ratios: ratios)
}

/// Sends `total` requests with `inFlight` workers each sending one after another; requests per second.
private func requestsPerSecond(
    total: Int,
    inFlight: Int,
    _ send: @escaping @Sendable () async throws -> Void
) async throws -> Double {
    let perWorker = max(1, total / inFlight)
    let start = now()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<inFlight {
            group.addTask {
                for _ in 0..<perWorker { try await send() }
            }
        }
        try await group.waitForAll()
    }
    let seconds = Double(now() - start) / 1e9
    return Double(perWorker * inFlight) / seconds
}

/// The server the HTTP benchmark talks to: nginx if it can be started, else the LoopbackServer.
private struct BenchmarkServer {
    var name: String
    var url: URL
    var loopback: LoopbackServer?
    var nginxPrefix: URL?

    var connectionsAccepted: Int? { loopback?.connectionsAccepted }

    static func start() throws -> BenchmarkServer {
        if let nginx = startNginx() { return nginx }
        let body = Data(#"{"id":1,"firstName":"Ada","lastName":"Lovelace"}"#.utf8)
        let server = LoopbackServer(
            recordsRequests: false,
            synchronousHandler: { _ in
                .response(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body))
            })
        try server.start()
        return BenchmarkServer(
            name: "CRUDKitTesting LoopbackServer (nginx not available)",
            url: server.baseURL,
            loopback: server
        )
    }

    func stop() {
        loopback?.stop()
        if let prefix = nginxPrefix {
            _ = Self.runScript(["stop", prefix.path])
            try? FileManager.default.removeItem(at: prefix)
        }
    }

    private static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("nginx/start-nginx.sh")
    }

    private static func startNginx() -> BenchmarkServer? {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("crudkit-nginx-\(UUID().uuidString)")
        guard let output = runScript(["start", prefix.path]),
            let port = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)),
            let url = URL(string: "http://127.0.0.1:\(port)")
        else {
            try? FileManager.default.removeItem(at: prefix)
            return nil
        }
        return BenchmarkServer(name: "nginx", url: url, nginxPrefix: prefix)
    }

    /// Runs the nginx script; its standard output when it exits 0.
    private static func runScript(_ arguments: [String]) -> String? {
        guard FileManager.default.isExecutableFile(atPath: script.path) else { return nil }
        let process = Process()
        process.executableURL = script
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
