import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// A server breaking the exchange at each stage must end in ``CRUDError/transport(underlying:)``, never a hang.
    @Suite struct TransportFaultTests {
        enum Stage: String, CaseIterable, Sendable {
            case beforeStatusLine, midHeaders, midBody, reset
        }

        @Test(arguments: Stage.allCases)
        func brokenConnectionIsATransportError(stage: Stage) async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                switch stage {
                case .beforeStatusLine: .fault(.closeBeforeStatusLine)
                case .midHeaders: .fault(.closeMidHeaders)
                case .midBody: .fault(.closeMidBody(HTTPResponse(status: 200, body: Data(count: 100_000)), after: 1000))
                case .reset: .fault(.reset)
                }
            })
            try server.start()
            defer { server.stop() }
            let transport = URLSessionTransport(configuration: .init(idleTimeout: 20))

            await #expect {
                try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent(stage.rawValue)))
            } throws: { error in
                isCRUDError(error) { $0.isTransport }
            }
        }

        @Test func truncatedDownloadLeavesNoFileBehind() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .fault(.closeMidBody(HTTPResponse(status: 200, body: Data(count: 1 << 20)), after: 100_000))
            })
            try server.start()
            defer { server.stop() }
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }

            await #expect {
                try await URLSessionTransport().download(
                    HTTPRequest(url: server.baseURL),
                    to: directory.appendingPathComponent("file.bin"),
                    observer: .none
                )
            } throws: { error in
                isCRUDError(error) { $0.isTransport }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }

        @Test func serverKeepsWorkingForTheSameTransportAfterAFault() async throws {
            let server = LoopbackServer(synchronousHandler: { request in
                request.path == "/bad" ? .fault(.closeMidHeaders) : .response(HTTPResponse(status: 200))
            })
            try server.start()
            defer { server.stop() }
            let transport = URLSessionTransport()

            _ = try? await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("bad")))
            let response = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("good")))

            #expect(response.status == 200)
        }
    }
}
