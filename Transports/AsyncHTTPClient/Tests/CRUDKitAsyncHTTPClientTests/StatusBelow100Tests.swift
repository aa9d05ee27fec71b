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
        // The child is waited for on a dispatch thread, never on one of the cooperative pool's few threads.
        let (reason, output) = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try Self.runChild() }) }
        }
        #expect(reason == .uncaughtSignal, "the child ended normally: AsyncHTTPClient fixed? \(output)")
        #expect(output.contains("How can we receive a response body"), "child stderr: \(output)")
    }

    /// Runs the test binary as a child that only runs `statusBelow100Child`; how it ended, and its stderr.
    private static func runChild() throws -> (Process.TerminationReason, String) {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--testing-library", "swift-testing", "--filter", "statusBelow100Child"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childVariable] = "1"
        child.environment = environment
        let errors = Pipe()
        child.standardError = errors
        child.standardOutput = FileHandle.nullDevice
        try child.run()
        // Read to the end (the child's stderr closes when it dies), bounded by a watchdog that kills it.
        let watchdog = DispatchWorkItem { [child] in if child.isRunning { child.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 45, execute: watchdog)
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        watchdog.cancel()
        return (child.terminationReason, output)
    }
    #endif
}
