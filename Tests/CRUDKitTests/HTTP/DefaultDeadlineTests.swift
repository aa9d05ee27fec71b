import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// Nothing waits forever by default: a body trickling a byte at a time keeps resetting the idle timeout, so an
    /// API has a default total deadline (300 s in memory, 3,600 s to a file), stamped on every request it builds;
    /// the transport enforces what the request carries and has no default of its own.
    @Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct DefaultDeadlineTests {
        @Test func theDefaultConfigurationHasATotalDeadlineStampedOnItsRequests() throws {
            let configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com"))
            #expect(configuration.deadline == 300)
            #expect(configuration.downloadDeadline == 3600)
            let api = API(configuration: configuration)
            #expect(try api.makeHTTPRequest(Request(.get, "people", decoder: .response)).deadline == 300)
            var own = Request(.get, "people", decoder: .response)
            own.deadline = .infinity
            #expect(try api.makeHTTPRequest(own).deadline == .infinity)
            #expect(
                try api.with { $0.deadline = nil }.makeHTTPRequest(Request(.get, "p", decoder: .response)).deadline
                    == nil)
        }

        static func makeTricklingServer() throws -> LoopbackServer {
            let server = LoopbackServer(synchronousHandler: { _ in
                .stream(LoopbackStream(chunks: Array(repeating: Data("x".utf8), count: 60), delay: 0.2))
            })
            try server.start()
            return server
        }

        /// An API over `server` whose transport's idle timeout (5 s) never fires: a byte comes every 0.2 s.
        static func api(
            _ server: LoopbackServer, deadline: TimeInterval? = 300, downloadDeadline: TimeInterval? = 3600
        )
            -> API
        {
            API(
                configuration: APIConfiguration(
                    baseURL: server.baseURL, transport: URLSessionTransport(configuration: .init(idleTimeout: 5)),
                    deadline: deadline, downloadDeadline: downloadDeadline))
        }

        @Test func aTricklingBodyEndsAtTheAPIsDeadline() async throws {
            let server = try Self.makeTricklingServer()
            defer { server.stop() }
            let api = Self.api(server, deadline: 0.8)

            let error = try await withinSeconds(10) { () -> CRUDError? in
                do {
                    try await api.get("trickle")
                    return nil
                } catch let error as CRUDError {
                    return error
                }
            }

            guard case .timedOut(.deadline(let seconds))? = error else {
                Issue.record("expected a deadline timeout, got \(String(describing: error))")
                return
            }
            #expect(seconds == 0.8)
        }

        @Test func aTricklingDownloadEndsAtTheAPIsDownloadDeadline() async throws {
            let server = try Self.makeTricklingServer()
            defer { server.stop() }
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            // The in-memory deadline (0.1 s) is not the one a download gets.
            let api = Self.api(server, deadline: 0.1, downloadDeadline: 0.8)

            let error = try await withinSeconds(10) { () -> CRUDError? in
                do {
                    try await api.download("trickle", to: directory.appendingPathComponent("f"))
                    return nil
                } catch let error as CRUDError {
                    return error
                }
            }

            guard case .timedOut(.deadline(let seconds))? = error else {
                Issue.record("expected a deadline timeout, got \(String(describing: error))")
                return
            }
            #expect(seconds == 0.8)
        }

        @Test func anInfiniteRequestDeadlineLiftsTheDefault() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .response(HTTPResponse(status: 200, body: Data("ok".utf8)))
            })
            try server.start()
            defer { server.stop() }
            let api = Self.api(server, deadline: 0.000_001)
            var unbounded = Request(.get, "ok", decoder: .response)
            unbounded.deadline = .infinity
            let request = unbounded

            let response = try await withinSeconds(10) { try await api.send(request) }

            #expect(response.status == 200)
            #expect(response.body == Data("ok".utf8))
        }
    }
}
