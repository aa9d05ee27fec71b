import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Testing

/// A status below 100 (`HTTP/1.1 000 Zero` with a body) stops the process inside AsyncHTTPClient 1.37: its state
/// machine takes any status below 200 for an informational head, skips it, and then meets the body with a
/// `preconditionFailure` ("How can we receive a response body, if we haven't received a head"). No setting of
/// AsyncHTTPClient avoids it and no code above it can catch it, so the contract's check is marked
/// `abortsProcess` for this transport and runs here in a child process, which must die of it (if AsyncHTTPClient
/// is ever fixed, this test says so, and the check can run in-process).
@Suite(.timeLimit(.minutes(1))) struct StatusBelow100Tests {
    static let childVariable = "CRUDKIT_AHC_STATUS_000_CHILD"
    /// A status line with status 000, a length and a two-byte body.
    static let zeroStatus = "HTTP/1.1 000 Zero\r\nContent-Length: 2\r\n\r\n{}"

    /// Runs in the child process only: the request that stops AsyncHTTPClient.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] == "1"))
    func statusBelow100Child() async throws {
        let server = LoopbackServer(synchronousHandler: { _ in .fault(.raw(Data(Self.zeroStatus.utf8))) })
        try server.start()
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport()
        _ = try? await transport.send(HTTPRequest(url: server.baseURL))
        try? await transport.shutdown()
    }

    #if os(Linux)
    @Test func aStatusBelow100StopsAsyncHTTPClientInAChildProcess() async throws {
        guard ProcessInfo.processInfo.environment[Self.childVariable] == nil else { return }
        let ending = try await ChildTestProcess.run(
            filter: "statusBelow100Child", environment: [Self.childVariable: "1"])
        let (reason, output) = (ending.reason, ending.standardError)
        #expect(reason == .uncaughtSignal, "the child ended normally: AsyncHTTPClient fixed? \(output)")
        #expect(output.contains("How can we receive a response body"), "child stderr: \(output)")
    }
    #endif
}
