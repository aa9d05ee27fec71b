import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Testing

/// Which idle timeout a request behind an `API` gets over this transport: its own, then the API's
/// (`APIConfiguration.timeout`), then the transport's (`Configuration.idleTimeout`), the same over
/// `URLSessionTransport`. The transport's setting was dead behind an API: every request carried the API's 60 s, so
/// `idleTimeout: 1` waited out a 3 s stall.
@Suite(.timeLimit(.minutes(1))) struct IdleTimeoutPrecedenceTests {
    /// The two transports, by name.
    enum Kind: String, CaseIterable, Sendable {
        case asyncHTTPClient, urlSession
    }

    /// A server that sends nothing for 3 s, then a 200.
    static func makeStallingServer() throws -> LoopbackServer {
        let server = LoopbackServer(synchronousHandler: { _ in
            .stream(LoopbackStream(chunks: [Data("late".utf8)], delay: 3, delaysHead: true))
        })
        try server.start()
        return server
    }

    /// `GET /slow` through an API over a `kind` transport whose `idleTimeout` is `transportIdle`, the API's `timeout`
    /// being `apiTimeout` (none when `nil`) and the request's `request`: the timeout it failed with, or `nil` when it
    /// was answered.
    static func timeoutOfGet(
        _ kind: Kind, transportIdle: TimeInterval, api apiTimeout: TimeInterval?, request: TimeInterval? = nil
    ) async throws -> CRUDError.Timeout? {
        let server = try makeStallingServer()
        defer { server.stop() }
        let configuration = URLSessionTransport.Configuration(idleTimeout: transportIdle)
        let adapter =
            kind == .asyncHTTPClient ? AsyncHTTPClientTransport(configuration: .init(matching: configuration)) : nil
        let transport: any Transport = adapter ?? URLSessionTransport(configuration: configuration)
        // The default API is written as a user writes it, without a timeout.
        let api =
            apiTimeout.map { API(baseURL: server.baseURL, transport: transport, timeout: $0) }
            ?? API(baseURL: server.baseURL, transport: transport)
        let outcome: Result<Void, CRUDError>
        do {
            _ = try await api.send(Request(.get, "slow", timeout: request, decoder: .response))
            outcome = .success(())
        } catch let error as CRUDError {
            outcome = .failure(error)
        }
        try await adapter?.shutdown()
        switch outcome {
        case .success: return nil
        case .failure(.timedOut(let timeout)): return timeout
        case .failure(let error): throw error
        }
    }

    @Test(arguments: Kind.allCases)
    func anAPIWithoutATimeoutUsesTheTransportsIdleTimeout(_ kind: Kind) async throws {
        let timeout = try await Self.timeoutOfGet(kind, transportIdle: 1, api: nil)
        #expect(timeout == .idle(1), "the transport's idleTimeout of 1 s did not act behind the API")
    }

    @Test(arguments: Kind.allCases)
    func anAPIsTimeoutWinsOverTheTransports(_ kind: Kind) async throws {
        let timeout = try await Self.timeoutOfGet(kind, transportIdle: 10, api: 1)
        #expect(timeout == .idle(1))
    }

    @Test(arguments: Kind.allCases)
    func anAPIsLongerTimeoutLiftsTheTransports(_ kind: Kind) async throws {
        let timeout = try await Self.timeoutOfGet(kind, transportIdle: 1, api: 10)
        #expect(timeout == nil, "the API's 10 s did not win over the transport's 1 s")
    }

    @Test(arguments: Kind.allCases)
    func aRequestsTimeoutWinsOverTheAPIsAndTheTransports(_ kind: Kind) async throws {
        let timeout = try await Self.timeoutOfGet(kind, transportIdle: 10, api: 10, request: 1)
        #expect(timeout == .idle(1))
    }
}
