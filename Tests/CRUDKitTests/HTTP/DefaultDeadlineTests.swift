import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// Nothing waits forever by default: a body trickling a byte at a time keeps resetting the idle timeout, so
    /// the transport has a default total deadline (300 s in memory, 3,600 s to a file).
    @Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct DefaultDeadlineTests {
        @Test func theDefaultConfigurationHasATotalDeadline() {
            let configuration = URLSessionTransport.Configuration()
            #expect(configuration.deadline == 300)
            #expect(configuration.downloadDeadline == 3600)
            #expect(URLSessionTransport().configuration.deadline == 300)
        }

        static func makeTricklingServer() throws -> LoopbackServer {
            let server = LoopbackServer(synchronousHandler: { _ in
                .stream(LoopbackStream(chunks: Array(repeating: Data("x".utf8), count: 60), delay: 0.2))
            })
            try server.start()
            return server
        }

        @Test func aTricklingBodyEndsAtTheConfiguredDeadline() async throws {
            let server = try Self.makeTricklingServer()
            defer { server.stop() }
            // The idle timeout (5 s) never fires: a byte comes every 0.2 s. Only the total deadline ends it.
            let transport = URLSessionTransport(configuration: .init(idleTimeout: 5, deadline: 0.8))

            let error = try await withinSeconds(10) { () -> CRUDError? in
                do {
                    _ = try await transport.send(HTTPRequest(url: server.baseURL))
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

        @Test func aTricklingDownloadEndsAtTheDownloadDeadline() async throws {
            let server = try Self.makeTricklingServer()
            defer { server.stop() }
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let transport = URLSessionTransport(configuration: .init(idleTimeout: 5, downloadDeadline: 0.8))

            let error = try await withinSeconds(10) { () -> CRUDError? in
                do {
                    _ = try await transport.download(
                        HTTPRequest(url: server.baseURL), to: directory.appendingPathComponent("f"), observer: .none)
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
            let transport = URLSessionTransport(configuration: .init(deadline: 0.000_001))

            let response = try await withinSeconds(10) {
                try await transport.send(HTTPRequest(url: server.baseURL, deadline: .infinity))
            }

            #expect(response.status == 200)
            #expect(response.body == Data("ok".utf8))
        }
    }
}
