import CRUDKit
import CRUDKitTesting
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP suite: requests per second of `URLSessionTransport` beside raw `URLSession` against the same
/// loopback server in the same run (nginx when `Benchmarks/nginx/start-nginx.sh` can start it, otherwise
/// CRUDKitTesting's `LoopbackServer`), sequential and with 64 requests in flight; then the same through the whole
/// `API` pipeline (`api.get`). Sequentially and with 64 in flight the three clients take turns round by round
/// (`interleavedRounds`), each alone in its turn; each figure is the median of the rounds.
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
    // The whole pipeline: URL building, default headers, no middleware of your own, status check, logging (off).
    // Coalescing is off so that every call really is a request, as for the baseline.
    let api = API(baseURL: server.url, transport: transport).with { $0.middleware.removeAll(named: .coalescing) }
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
    // Sequential: each round runs the three clients one after another (500 requests each, one at a time), in an
    // order that changes every round, so a slow moment of the machine (it is a shared VM) lands on all three alike;
    // each figure is the median over the rounds.
    let sequential = try await interleavedRounds(
        rounds: options.smoke ? 1 : 15,
        [
            { try await requestsPerSecond(total: options.iterations(500), inFlight: 1, raw) },
            { try await requestsPerSecond(total: options.iterations(500), inFlight: 1, ours) },
            { try await requestsPerSecond(total: options.iterations(500), inFlight: 1, viaAPI) },
        ])
    for (index, label) in [(1, "URLSessionTransport"), (2, "API.get, whole pipeline")] {
        met =
            report(
                "GET, sequential (\(label))", ours: sequential.figures[index], baseline: sequential.figures[0],
                baselineName: "URLSession.data(for:) on the same server", unit: .requestsPerSecond, target: 0.95
            ) && met
        print("    \(sequential.spread(of: index))")
    }

    // 64 in flight: each round runs the three clients one after another (3,200 requests each), in an order that
    // changes every round; each figure is the median over the rounds.
    let concurrent = try await interleavedRounds(
        rounds: options.smoke ? 1 : 15,
        [
            { try await requestsPerSecond(total: options.iterations(3_200), inFlight: 64, raw) },
            { try await requestsPerSecond(total: options.iterations(3_200), inFlight: 64, ours) },
            { try await requestsPerSecond(total: options.iterations(3_200), inFlight: 64, viaAPI) },
        ])
    for (index, label) in [(1, "URLSessionTransport"), (2, "API.get, whole pipeline")] {
        met =
            report(
                "GET, 64 in flight (\(label))", ours: concurrent.figures[index], baseline: concurrent.figures[0],
                baselineName: "URLSession.data(for:), 64 in flight, \(connections) connections per host",
                unit: .requestsPerSecond, target: 0.95
            ) && met
        print("    \(concurrent.spread(of: index))")
    }
    if let accepted = server.connectionsAccepted {
        print("    connections the server accepted over the whole suite: \(accepted)")
    }
    return met
}

/// Figures for several clients measured side by side (index 0 is the baseline), and the per-part ratios against
/// the baseline that show how much the machine's noise moved them.
private struct SideBySide {
    var figures: [Double]
    /// For each client, its ratio to the baseline in each round.
    var ratios: [[Double]]
    var partName: String

    /// One line on the spread of client `index`'s per-part ratios to the baseline.
    func spread(of index: Int) -> String {
        let sorted = ratios[index].sorted()
        guard let low = sorted.first, let high = sorted.last else { return "no \(partName)s" }
        return String(
            format: "%d %@s; per-%@ ratio median %.2f×, range %.2f×–%.2f×", sorted.count, partName, partName,
            sorted[sorted.count / 2], low, high)
    }
}

/// Runs each measurement once per round, in an order that changes every round (a slow drift of the machine's
/// load weighs on all alike), and returns each one's median over the rounds. The median, unlike the best round, is
/// not decided by a single quiet moment that only one side happened to get.
private func interleavedRounds(
    rounds: Int,
    _ measurements: [() async throws -> Double]
) async throws -> SideBySide {
    var figures: [[Double]] = Array(repeating: [], count: measurements.count)
    for round in 0..<max(1, rounds) {
        // Rotate, and reverse every other round, so each goes first, middle and last equally often.
        var order = measurements.indices.map { ($0 + round) % measurements.count }
        if round % 2 == 1 { order.reverse() }
        for index in order {
            figures[index].append(try await measurements[index]())
        }
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    return SideBySide(
        figures: figures.map(median),
        ratios: figures.map { values in zip(values, figures[0]).map { $0 / $1 } },
        partName: "round")
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
