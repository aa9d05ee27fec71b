import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Testing

/// The API's default deadlines reach the adapter as the deadline each request carries (the adapter has none of its
/// own): a body trickling a byte every 0.2 s, which the idle time never ends, ends at the API's `deadline` in memory
/// and at its `downloadDeadline` to a file.
@Suite(.timeLimit(.minutes(1))) struct APIDeadlineTests {
    static func makeTricklingServer() throws -> LoopbackServer {
        let server = LoopbackServer(synchronousHandler: { _ in
            .stream(LoopbackStream(chunks: Array(repeating: Data("x".utf8), count: 60), delay: 0.2))
        })
        try server.start()
        return server
    }

    static func outcome(_ operation: () async throws -> HTTPResponse) async -> String {
        do {
            return "status \(try await operation().status)"
        } catch {
            return "\(error)"
        }
    }

    @Test func aTricklingBodyEndsAtTheAPIsDeadline() async throws {
        let server = try Self.makeTricklingServer()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(idleTimeout: 5))
        let api = API(baseURL: server.baseURL, transport: transport).with { $0.deadline = 0.8 }

        let result = await Self.outcome { try await api.get("trickle") }

        #expect(result == "\(CRUDError.timedOut(.deadline(0.8)))")
        try await transport.shutdown()
    }

    @Test func aTricklingDownloadEndsAtTheAPIsDownloadDeadline() async throws {
        let server = try Self.makeTricklingServer()
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crudkit-ahc-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = AsyncHTTPClientTransport(configuration: .init(idleTimeout: 5))
        let api = API(baseURL: server.baseURL, transport: transport).with {
            $0.deadline = 0.1
            $0.downloadDeadline = 0.8
        }

        let result = await Self.outcome { try await api.download("trickle", to: directory.appendingPathComponent("f")) }

        #expect(result == "\(CRUDError.timedOut(.deadline(0.8)))")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("f").path))
        try await transport.shutdown()
    }
}
