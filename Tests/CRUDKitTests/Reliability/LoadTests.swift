import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// Load through one ``API`` over the real URLSession transport against the ``LoopbackServer``: 1,000 concurrent
    /// reads, then 10,000 sequential ones. Every response must be the answer to its own request, no request may
    /// fail, and neither memory nor file descriptors may grow with the number of requests.
    ///
    /// The test prints one parsable line, the source of README's reliability figures:
    /// `RELIABILITY load: requests=… errors=… mismatched=… rss_before_kb=… rss_after_kb=… fds_before=… fds_after=…`.
    @Suite struct LoadTests {
        static let concurrent = 1_000
        /// 10,000 in ordinary runs; 1,000 under a sanitizer, where each request costs about ten times as much and the
        /// concurrent phase is what the race and leak checks need.
        static let sequential = TestEnvironment.underSanitizer ? 1_000 : 10_000
        /// How much resident memory may grow over the whole run: URLSession's threads, connection pool and malloc's
        /// retained arenas, but nothing proportional to 11,000 requests.
        static let memoryBoundKilobytes = 48 * 1024
        /// File descriptors that may be open after the run besides connections: URLSession's multi handle (epoll and
        /// event fds) and files other suites, which run beside this one, hold for a moment.
        static let sessionDescriptors = 16

        /// `{"id": <id from the path>, "name": "Person <id>", "echo": "<X-Request-ID>"}`.
        struct Echo: Codable, Sendable, Hashable {
            var id: Int
            var name: String
            var echo: String
        }

        private static func makeServer() throws -> LoopbackServer {
            let server = LoopbackServer(
                recordsRequests: false,
                synchronousHandler: { request in
                    let id = Int(request.path.split(separator: "/").last ?? "") ?? -1
                    let echo = request.headers["X-Request-ID"] ?? ""
                    let body = #"{"id": \#(id), "name": "Person \#(id)", "echo": "\#(echo)"}"#
                    return .response(
                        HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8)))
                })
            try server.start()
            return server
        }

        /// Whether one read came back as the answer to its own request; an error counts as a failure.
        private static func read(_ index: Int, through api: API) async -> (failed: Bool, matched: Bool) {
            do {
                let echo = try await api.get(
                    "people/\(index)", headers: ["X-Request-ID": "request-\(index)"], as: Echo.self)
                return (false, echo == Echo(id: index, name: "Person \(index)", echo: "request-\(index)"))
            } catch {
                return (true, false)
            }
        }

        struct Outcome {
            var errors = 0
            var mismatched = 0
            var port = 0
            var peakConnections = 0
            var seconds = 0.0
        }

        /// Runs the load and stops the server; the API and its transport are released when this returns.
        private static func runLoad() async throws -> Outcome {
            let server = try makeServer()
            defer { server.stop() }
            let api = API(configuration: APIConfiguration(baseURL: server.baseURL, transport: URLSessionTransport()))
            var outcome = Outcome(port: server.port)
            let clock = ContinuousClock()
            let started = clock.now

            var results = await withTaskGroup(of: (failed: Bool, matched: Bool).self) { group in
                for index in 0..<concurrent {
                    group.addTask { await read(index, through: api) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for index in concurrent..<(concurrent + sequential) {
                results.append(await read(index, through: api))
            }

            outcome.seconds = (clock.now - started).secondsValue
            outcome.errors = results.filter(\.failed).count
            outcome.mismatched = results.filter { !$0.failed && !$0.matched }.count
            outcome.peakConnections = server.peakOpenConnections
            #expect(results.count == concurrent + sequential)
            return outcome
        }

        @Test func thousandConcurrentThenTenThousandSequentialReads() async throws {
            let before = ProcessFigures.now()

            let outcome = try await Self.runLoad()

            let maximumPooled = URLSessionTransport.Configuration().maximumConnectionsPerHost
            // Teardown (the stopped server's connections, the released session's pool) ends on other threads: wait,
            // bounded, until the sockets this test opened are gone or pooled, each count from one reading.
            let sockets = await ProcessFigures.settledTCPSnapshot(port: outcome.port, within: 10) { snapshot in
                snapshot.onPort == 0 && snapshot.listeningOnPort == 0 && snapshot.toPort <= maximumPooled
            }
            let after = ProcessFigures.now()
            print(
                "RELIABILITY load: requests=\(Self.concurrent + Self.sequential) concurrent=\(Self.concurrent)",
                "sequential=\(Self.sequential) errors=\(outcome.errors) mismatched=\(outcome.mismatched)",
                "seconds=\(String(format: "%.1f", outcome.seconds)) peak_connections=\(outcome.peakConnections)",
                "rss_before_kb=\(before.residentKilobytes) rss_after_kb=\(after.residentKilobytes)",
                "rss_bound_kb=\(Self.memoryBoundKilobytes) fds_before=\(before.descriptors)",
                "fds_after=\(sockets.descriptors) tcp_sockets_before=\(before.tcpSockets)",
                "tcp_sockets_after=\(sockets.tcpSockets) unix_sockets_before=\(before.sockets - before.tcpSockets)",
                "unix_sockets_after=\(after.sockets - after.tcpSockets)",
                "pooled_client_sockets_after=\(sockets.toPort)",
                "server_sockets_after=\(sockets.onPort)"
            )
            #expect(outcome.errors == 0)
            #expect(outcome.mismatched == 0)
            // The server counts a connection until it reads the client's close, so a connection libcurl retired
            // and replaced during the load can overlap its successor there for a moment (seen once: 33 against 32).
            // A few such stragglers are allowed; a transport ignoring its limit would open up to 1,000.
            let closingStragglers = 4
            #expect(outcome.peakConnections <= maximumPooled + closingStragglers)
            #if os(Linux)
            #expect(sockets.onPort == 0, "the stopped server left sockets open: \(sockets)")
            #expect(sockets.listeningOnPort == 0, "the stopped server left its listener open: \(sockets)")
            #expect(sockets.toPort <= maximumPooled)
            // TCP sockets to other ports are not this test's: suites outside `NetworkTests` (the interop target's,
            // in the same process) keep connections open while they run, and under AddressSanitizer one outlived
            // the 10 s wait and failed CI. They are printed, not counted; the descriptor total below has slack.
            // Other suites run beside this one and open files for a moment, so the total gets some slack.
            #expect(
                sockets.descriptors - sockets.toPort <= before.descriptors + Self.sessionDescriptors,
                "descriptors leaked: \(before.descriptors) before, \(sockets.descriptors) after, \(sockets.toPort) pooled"
            )
            if TestEnvironment.measuresResidentMemory {
                #expect(after.residentKilobytes - before.residentKilobytes < Self.memoryBoundKilobytes)
            }
            #endif
        }
    }
}
