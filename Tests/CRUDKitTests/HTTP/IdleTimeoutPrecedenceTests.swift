import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// Which idle timeout a request behind an `API` gets, over the wire: its own, then the API's
    /// (`APIConfiguration.timeout`), then the transport's (`Configuration.idleTimeout`). The transport's setting was
    /// dead behind an API: every request carried the API's 60 s, so `idleTimeout: 1` waited out a 3 s stall.
    @Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct IdleTimeoutPrecedenceTests {
        /// A server that sends nothing for 3 s, then a 200.
        static func makeStallingServer() throws -> LoopbackServer {
            let server = LoopbackServer(synchronousHandler: { _ in
                .stream(LoopbackStream(chunks: [Data("late".utf8)], delay: 3, delaysHead: true))
            })
            try server.start()
            return server
        }

        /// `api.get` against the stalling server: the timeout it failed with, or `nil` when it was answered.
        static func timeoutOfGet(_ api: API, timeout: TimeInterval? = nil) async throws -> CRUDError.Timeout? {
            do {
                _ = try await api.send(Request(.get, "slow", timeout: timeout, decoder: .response))
                return nil
            } catch let error as CRUDError {
                guard case .timedOut(let timeout) = error else { throw error }
                return timeout
            }
        }

        @Test func anAPIWithoutATimeoutUsesTheTransportsIdleTimeout() async throws {
            let server = try Self.makeStallingServer()
            defer { server.stop() }
            let api = API(
                baseURL: server.baseURL, transport: URLSessionTransport(configuration: .init(idleTimeout: 1)))

            let timeout = try await Self.timeoutOfGet(api)

            #expect(timeout == .idle(1), "the transport's idleTimeout of 1 s did not act behind the API")
        }

        @Test func anAPIsTimeoutWinsOverTheTransports() async throws {
            let server = try Self.makeStallingServer()
            defer { server.stop() }
            let api = API(
                baseURL: server.baseURL, transport: URLSessionTransport(configuration: .init(idleTimeout: 10)),
                timeout: 1)

            let timeout = try await Self.timeoutOfGet(api)

            #expect(timeout == .idle(1))
        }

        @Test func anAPIsLongerTimeoutLiftsTheTransports() async throws {
            let server = try Self.makeStallingServer()
            defer { server.stop() }
            let api = API(
                baseURL: server.baseURL, transport: URLSessionTransport(configuration: .init(idleTimeout: 1)),
                timeout: 10)

            let timeout = try await Self.timeoutOfGet(api)

            #expect(timeout == nil, "the API's 10 s did not win over the transport's 1 s")
        }

        @Test func aRequestsTimeoutWinsOverTheAPIsAndTheTransports() async throws {
            let server = try Self.makeStallingServer()
            defer { server.stop() }
            let api = API(
                baseURL: server.baseURL, transport: URLSessionTransport(configuration: .init(idleTimeout: 10)),
                timeout: 10)

            let timeout = try await Self.timeoutOfGet(api, timeout: 1)

            #expect(timeout == .idle(1))
        }
    }
}
