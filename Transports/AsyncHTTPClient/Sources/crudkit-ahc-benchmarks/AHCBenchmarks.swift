// Requests per second of `api.get` over AsyncHTTPClientTransport beside raw AsyncHTTPClient and raw URLSession,
// against one loopback server (nginx when Benchmarks/nginx/start-nginx.sh can start it, else CRUDKitTesting's
// LoopbackServer), sequentially and with 64 in flight, all in one run. Every client decodes the same small JSON
// answer into the same struct, so each figure is "a typed value per request". Each client runs alone in its turn
// of a round, the turns shuffled every round; a figure is the median of the rounds (at least 7), with the range.
//
//   swift run -c release crudkit-ahc-benchmarks [--smoke]
//   swift run -c release crudkit-ahc-benchmarks --soak [--requests 200000] [--seconds N] (see Soak.swift)
//
// Environment, for measuring rather than reporting: AHC_BENCH_PROFILE=<client index> runs one client alone at 64 in
// flight (for a profiler); AHC_BENCH_AB=<rounds> runs raw AsyncHTTPClient and api.get over it only, interleaved,
// and prints their ratio (to compare two builds); AHC_BENCH_RAW_IDLE_TIMEOUT=1 gives the raw client the same 60 s
// read timeout the transport has.
import AsyncHTTPClient
import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import NIOCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The answer every client decodes.
struct Person: Codable, Sendable {
    var id: Int
    var firstName: String
    var lastName: String
}

/// A client under measurement: one request, its answer decoded.
typealias Client = @Sendable () async throws -> Void

@main
enum AHCBenchmarks {
    static let connections = 32

    static func main() async throws {
        if CommandLine.arguments.contains("--soak") { return try await Soak.run(arguments: CommandLine.arguments) }
        let smoke = CommandLine.arguments.contains("--smoke")
        let server = try BenchmarkServer.start()
        let url = server.url.appendingPathComponent("people/1")
        let decoder = JSONDecoder()

        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.httpMaximumConnectionsPerHost = connections
        sessionConfiguration.urlCache = nil
        let session = URLSession(configuration: sessionConfiguration)
        var urlRequest = URLRequest(url: url)
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        let builtURLRequest = urlRequest

        var clientSettings = HTTPClient.Configuration(redirectConfiguration: .disallow)
        clientSettings.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        if ProcessInfo.processInfo.environment["AHC_BENCH_RAW_IDLE_TIMEOUT"] != nil {
            // Like for like: the raw client also ends a response that stalls for 60 s, as the transport does by
            // default (AsyncHTTPClient's read timeout re-arms a timer on every part of every response).
            clientSettings.timeout.read = .seconds(60)
        }
        let rawClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientSettings)
        // The same raw client with the transport's default idle timeout as its read timeout, in every full run: the
        // like-for-like baseline (the timer it re-arms per response part is most of what separates the two rows).
        var timedSettings = clientSettings
        timedSettings.timeout.read = .seconds(60)
        let timedClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: timedSettings)

        let ahcTransport = AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: connections))
        let overAHC = API(baseURL: server.url, transport: ahcTransport).with {
            $0.middleware.removeAll(named: .coalescing)
        }
        let sessionTransport = URLSessionTransport(configuration: .init(maximumConnectionsPerHost: connections))
        let overURLSession = API(baseURL: server.url, transport: sessionTransport).with {
            $0.middleware.removeAll(named: .coalescing)
        }

        /// What a user of AsyncHTTPClient writes by hand: execute, collect the body, decode it.
        func executeCollectDecode(_ client: HTTPClient) -> Client {
            {
                var request = HTTPClientRequest(url: url.absoluteString)
                request.headers.add(name: "Accept", value: "application/json")
                let response = try await client.execute(request, timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1 << 20)
                guard response.status == .ok else { throw URLError(.badServerResponse) }
                _ = try decoder.decode(Person.self, from: Data(body.readableBytesView))
            }
        }

        let clients: [(name: String, send: Client)] = [
            (
                "URLSession.data(for:) + JSONDecoder",
                {
                    let (data, response) = try await session.data(for: builtURLRequest)
                    guard (response as? HTTPURLResponse)?.statusCode == 200 else {
                        throw URLError(.badServerResponse)
                    }
                    _ = try decoder.decode(Person.self, from: data)
                }
            ),
            (
                "AsyncHTTPClient execute + collect + JSONDecoder",
                executeCollectDecode(rawClient)
            ),
            (
                "CRUDKit api.get over AsyncHTTPClientTransport",
                { _ = try await overAHC.get("people/1", as: Person.self) }
            ),
            (
                "CRUDKit api.get over URLSessionTransport",
                { _ = try await overURLSession.get("people/1", as: Person.self) }
            ),
            (
                "AsyncHTTPClient as above, 60 s read timeout (the transport's idle timeout)",
                executeCollectDecode(timedClient)
            ),
        ]

        /// Ends every client and the server.
        func shutDown() async throws {
            try await ahcTransport.shutdown()
            try await rawClient.shutdown()
            try await timedClient.shutdown()
            session.invalidateAndCancel()
            server.stop()
        }

        if let only = ProcessInfo.processInfo.environment["AHC_BENCH_PROFILE"].flatMap(Int.init),
            clients.indices.contains(only)
        {
            // For a profiler: one client, 64 in flight, for a while; prints its rate and nothing else.
            for _ in 0..<300 { try await clients[only].send() }
            let rate = try await concurrentRates([clients[only].send], rounds: 3, total: 64_000)
            print("\(clients[only].name), 64 in flight: \(Int(rate[0].rounded())) req/s")
            try await shutDown()
            return
        }

        if let spec = ProcessInfo.processInfo.environment["AHC_BENCH_CALLS"] {
            // For an instruction counter (valgrind --tool=callgrind): `<client>,<requests>[,<in flight>[,1]]` sends
            // that many requests with one client after 50 to warm up, and nothing else; two runs with different
            // counts give the cost of one request as their difference. A fourth field of 1 sends each request in a
            // task of its own, as a server does per incoming request (its async frames start in a fresh allocator).
            let parts = spec.split(separator: ",").compactMap { Int($0) }
            if parts.count >= 2, clients.indices.contains(parts[0]) {
                let client = clients[parts[0]].send
                let fresh = parts.count > 3 && parts[3] == 1
                let send: Client = {
                    if fresh {
                        try await Task { try await client() }.value
                    } else {
                        try await client()
                    }
                }
                for _ in 0..<50 { try await send() }
                let inFlight = parts.count > 2 ? max(1, parts[2]) : 1
                _ = try await roundRates([send], rounds: 1, inFlight: inFlight, total: parts[1])
            }
            try await shutDown()
            return
        }

        if let only = ProcessInfo.processInfo.environment["AHC_BENCH_AB"].flatMap(Int.init), only > 0 {
            // For an A/B comparison between builds: raw AsyncHTTPClient and api.get over it only, interleaved as in
            // a full run, `only` rounds at 64 in flight; prints the two rates and their ratio.
            let pair = [clients[1].send, clients[2].send]
            for client in pair { for _ in 0..<300 { try await client() } }
            let sequential = try await sequentialRates(pair, requests: 2_000)
            let (rates, cpu) = try await concurrentRatesAndCPU(pair, rounds: only, total: 6_400)
            print(
                "sequential \(Int(sequential[0].rounded())) \(Int(sequential[1].rounded()))"
                    + " \(String(format: "%.3f", sequential[1] / sequential[0]))"
                    + " | 64 in flight \(Int(rates[0].rounded())) \(Int(rates[1].rounded()))"
                    + " \(String(format: "%.3f", rates[1] / rates[0]))"
                    + " | CPU µs/request \(String(format: "%.1f %.1f %.3f", cpu[0], cpu[1], cpu[0] / cpu[1]))")
            try await shutDown()
            return
        }

        print("CRUDKit over AsyncHTTPClient\(smoke ? " (smoke run: figures are not meaningful)" : "")")
        print("server: \(server.name), \(server.url.absoluteString); \(connections) connections per host everywhere")
        for client in clients {
            for _ in 0..<(smoke ? 5 : 300) { try await client.send() }  // warm connections and lazy state
        }

        var allMet = true
        let rounds = Int(ProcessInfo.processInfo.environment["AHC_BENCH_ROUNDS"] ?? "") ?? 9
        let sequential = try await roundRates(
            clients.map(\.send), rounds: smoke ? 1 : max(7, rounds), inFlight: 1, total: smoke ? 20 : 2_000)
        let parallel = try await roundRates(
            clients.map(\.send), rounds: smoke ? 1 : max(7, rounds), inFlight: 64, total: smoke ? 128 : 6_400)
        for (title, rounds) in [("sequential", sequential), ("64 in flight", parallel)] {
            print("GET, \(title) (median of \(rounds[0].count) rounds, [lowest–highest]):")
            for (index, client) in clients.enumerated() {
                let sorted = rounds[index].sorted()
                print(
                    "  \(client.name): \(Int(median(sorted).rounded())) req/s"
                        + " [\(Int(sorted[0].rounded()))–\(Int(sorted[sorted.count - 1].rounded()))]")
            }
            allMet = compare("api.get over AHC", rounds[2], "raw AHC", rounds[1], target: 0.95) && allMet
            allMet =
                compare("api.get over URLSessionTransport", rounds[3], "raw URLSession", rounds[0], target: 0.95)
                && allMet
            _ = compare("api.get over AHC", rounds[2], "raw URLSession", rounds[0], target: nil)
            _ = compare("raw AHC", rounds[1], "raw URLSession", rounds[0], target: nil)
            _ = compare("api.get over AHC", rounds[2], "raw AHC with a 60 s read timeout", rounds[4], target: nil)
        }

        try await shutDown()
        if smoke {
            print("Smoke run finished: every client ran; targets are judged only in a full run.")
        } else {
            print(allMet ? "All targets met." : "Some targets were missed (see MISSED above).")
        }
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    /// Every round runs each client alone, one after another in an order shuffled every round, for `total` requests
    /// with `inFlight` workers each sending one after another; each client's requests per second in every round.
    static func roundRates(
        _ clients: [Client], rounds: Int, inFlight: Int, total: Int
    ) async throws -> [[Double]] {
        var figures: [[Double]] = Array(repeating: [], count: clients.count)
        var order = Array(clients.indices)
        for _ in 0..<rounds {
            order.shuffle()
            for index in order {
                let send = clients[index]
                let perWorker = max(1, total / inFlight)
                let start = now()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<inFlight { group.addTask { for _ in 0..<perWorker { try await send() } } }
                    try await group.waitForAll()
                }
                figures[index].append(Double(perWorker * inFlight) / (Double(now() - start) / 1e9))
            }
        }
        return figures
    }

    /// Sequential: the clients take turns request by request in a shuffled order, so the machine's drift lands on
    /// all alike; each client's rate is its request count over its own summed time.
    static func sequentialRates(_ clients: [Client], requests: Int) async throws -> [Double] {
        var spent = [UInt64](repeating: 0, count: clients.count)
        var order = Array(clients.indices)
        for _ in 0..<requests {
            order.shuffle()
            for index in order {
                let start = now()
                try await clients[index]()
                spent[index] += now() - start
            }
        }
        return spent.map { Double(requests) / (Double($0) / 1e9) }
    }

    /// 64 in flight: every round runs each client once, in a rotating order; each figure is the median round.
    static func concurrentRates(_ clients: [Client], rounds: Int, total: Int) async throws -> [Double] {
        try await concurrentRatesAndCPU(clients, rounds: rounds, total: total).rates
    }

    /// The process's CPU time (all threads, user and system), in nanoseconds.
    static func cpuNow() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// ``concurrentRates(_:rounds:total:)``, also giving each client's median CPU time per request in
    /// microseconds (this process only: the server's share is left out), which other load on the machine disturbs
    /// far less than the rate.
    static func concurrentRatesAndCPU(
        _ clients: [Client], rounds: Int, total: Int
    ) async throws -> (rates: [Double], cpu: [Double]) {
        var figures: [[Double]] = Array(repeating: [], count: clients.count)
        var cpu: [[Double]] = Array(repeating: [], count: clients.count)
        for round in 0..<rounds {
            var order = clients.indices.map { ($0 + round) % clients.count }
            if round % 2 == 1 { order.reverse() }
            for index in order {
                let send = clients[index]
                let perWorker = max(1, total / 64)
                let start = now()
                let startCPU = cpuNow()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<64 { group.addTask { for _ in 0..<perWorker { try await send() } } }
                    try await group.waitForAll()
                }
                let requests = Double(perWorker * 64)
                cpu[index].append(Double(cpuNow() - startCPU) / 1e3 / requests)
                figures[index].append(requests / (Double(now() - start) / 1e9))
            }
        }
        return (figures.map { $0.sorted()[$0.count / 2] }, cpu.map { $0.sorted()[$0.count / 2] })
    }

    /// Prints one ratio line: the ratio of the medians, and the range of the per-round ratios (the two clients of one
    /// round ran minutes apart at most); whether the target (a minimum ratio of the medians) is met.
    static func compare(
        _ name: String, _ rates: [Double], _ baselineName: String, _ baselines: [Double], target: Double?
    ) -> Bool {
        let ratio = median(rates) / median(baselines)
        let perRound = zip(rates, baselines).map { $0 / $1 }.sorted()
        let met = target.map { ratio >= $0 } ?? true
        let verdict = target.map { met ? "target ≥ \($0)× met" : "MISSED target ≥ \($0)×" } ?? "no target"
        print(
            "  \(name) / \(baselineName): \(String(format: "%.2f", ratio))×"
                + " (per round \(String(format: "%.2f–%.2f", perRound[0], perRound[perRound.count - 1]))×; \(verdict))")
        return met
    }
}

/// nginx started by the Benchmarks package's script, or a LoopbackServer when nginx is not installed.
struct BenchmarkServer {
    var name: String
    var url: URL
    var loopback: LoopbackServer?
    var nginxPrefix: URL?

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Benchmarks/nginx/start-nginx.sh")

    static func start() throws -> BenchmarkServer {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("crudkit-ahc-nginx-\(UUID())")
        if let output = run(["start", prefix.path]),
            let port = Int(output.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            return BenchmarkServer(name: "nginx", url: URL(string: "http://127.0.0.1:\(port)")!, nginxPrefix: prefix)
        }
        let answer = Data(#"{"id":1,"firstName":"Ada","lastName":"Lovelace"}"#.utf8)
        let server = LoopbackServer(
            recordsRequests: false,
            synchronousHandler: { _ in
                .response(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: answer))
            })
        try server.start()
        return BenchmarkServer(
            name: "CRUDKitTesting LoopbackServer (nginx not available)", url: server.baseURL, loopback: server)
    }

    func stop() {
        loopback?.stop()
        if let nginxPrefix {
            _ = Self.run(["stop", nginxPrefix.path])
            try? FileManager.default.removeItem(at: nginxPrefix)
        }
    }

    /// Runs the nginx script; its standard output when it exits 0.
    static func run(_ arguments: [String]) -> String? {
        guard FileManager.default.isExecutableFile(atPath: script.path) else { return nil }
        let process = Process()
        process.executableURL = script
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 ? text : nil
    }
}
