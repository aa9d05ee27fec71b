import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkTests {
    /// A server that closes the connection inside the status line or the headers.
    ///
    /// Inside the status line, FoundationNetworking reports `URLError.badServerResponse` (-1011), which the
    /// transport turns into ``CRUDError/transport(underlying:)``. Inside the headers, before any `Content-Length`,
    /// FoundationNetworking on Linux aborts the process (`Transfer completed, but there's no response`) before any
    /// delegate callback, so no transport above URLSession can catch it: that case runs in a child process here,
    /// which must die with that message (if FoundationNetworking is ever fixed, the test says so).
    @Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct HeaderCloseTests {
        static let childVariable = "CRUDKIT_HEADER_CLOSE_CHILD"
        /// Status line and one header field, no `Content-Length`, then the server closes.
        static let insideHeaders = "HTTP/1.1 200 OK\r\nContent-Type: text/pl"

        @Test(arguments: ["HTTP/1.1 20", "HTTP/1.1 200 O", "HTTP/1.1 200 OK\r"])
        func aCloseInsideTheStatusLineIsATransportError(bytes: String) async throws {
            let server = LoopbackServer(synchronousHandler: { _ in .fault(.raw(Data(bytes.utf8))) })
            try server.start()
            defer { server.stop() }
            let transport = URLSessionTransport(configuration: .init(idleTimeout: 20))

            let error = try await withinSeconds(15) { () -> CRUDError? in
                do {
                    _ = try await transport.send(HTTPRequest(url: server.baseURL))
                    return nil
                } catch let error as CRUDError {
                    return error
                }
            }

            guard case .transport(let failure)? = error else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
            #if canImport(FoundationNetworking)
            #expect((failure.underlying as? URLError)?.code == .badServerResponse)
            #endif
        }

        /// Runs in the child process only: the request that makes FoundationNetworking abort.
        @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] == "1"))
        func closeInsideHeadersChild() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in .fault(.raw(Data(Self.insideHeaders.utf8))) })
            try server.start()
            defer { server.stop() }
            _ = try? await URLSessionTransport().send(HTTPRequest(url: server.baseURL))
        }

        #if os(Linux)
        @Test func aCloseInsideTheHeadersAbortsFoundationNetworkingInAChildProcess() async throws {
            guard ProcessInfo.processInfo.environment[Self.childVariable] == nil else { return }
            let ending = try await ChildTestProcess.run(
                filter: "closeInsideHeadersChild", environment: [Self.childVariable: "1"])
            let (reason, output) = (ending.reason, ending.standardError)
            #expect(reason == .uncaughtSignal, "the child ended normally: FoundationNetworking fixed?")
            #expect(output.contains("Transfer completed, but there's no response"), "child stderr: \(output)")
        }
        #endif
    }
}
