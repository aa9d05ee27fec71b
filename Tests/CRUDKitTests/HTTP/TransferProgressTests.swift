import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    @Suite struct TransferProgressTests {
        /// Collects progress reports from the transport's queue.
        private final class Reports: Sendable {
            private let values = Locked<[TransferProgress]>([])
            func add(_ progress: TransferProgress) { values.withLock { $0.append(progress) } }
            var all: [TransferProgress] { values.withLock { $0 } }
        }

        @Test func reportsUploadProgressOfAMultiMegabyteBody() async throws {
            let server = LoopbackServer(
                bufferLimit: 1 << 20,
                synchronousHandler: { request in
                    .response(HTTPResponse(status: 200, body: Data("\(request.bodyLength)".utf8)))
                })
            try server.start()
            defer { server.stop() }
            let body = LoopbackDownload.bytes(0..<(6 << 20))
            let reports = Reports()

            let response = try await URLSessionTransport().send(
                HTTPRequest(method: .put, url: server.baseURL.appendingPathComponent("blob"), body: .data(body)),
                observer: TransferObserver(upload: reports.add)
            )

            #expect(response.body == Data("\(6 << 20)".utf8))
            let all = reports.all
            #expect(all.count > 1)
            #expect(all.map(\.completedBytes) == all.map(\.completedBytes).sorted())
            #expect(all.last?.completedBytes == Int64(6 << 20))
            #expect(all.allSatisfy { $0.expectedBytes == Int64(6 << 20) })
            var expected = LoopbackChecksum()
            expected.add(body)
            #expect(server.requests.first?.bodyChecksum == expected.value)
        }

        @Test func reportsUploadProgressOfAFileBody() async throws {
            let server = try makeEchoServer()
            defer { server.stop() }
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("upload.bin")
            try LoopbackDownload.bytes(0..<(3 << 20)).write(to: file)
            let reports = Reports()

            _ = try await URLSessionTransport().send(
                HTTPRequest(method: .post, url: server.baseURL, body: .file(file)),
                observer: TransferObserver(upload: reports.add)
            )

            #expect(reports.all.last?.completedBytes == Int64(3 << 20))
            #expect(reports.all.last?.expectedBytes == Int64(3 << 20))
            #expect(server.requests.first?.bodyLength == 3 << 20)
            #expect(server.requests.first?.headers["Content-Length"] == "\(3 << 20)")
        }

        @Test(arguments: [true, false])
        func reportsDownloadProgressOfAMultiMegabyteBody(declaresLength: Bool) async throws {
            let chunks = (0..<8).map { LoopbackDownload.bytes(($0 << 19)..<(($0 + 1) << 19)) }
            let server = LoopbackServer(synchronousHandler: { _ in
                .stream(LoopbackStream(chunks: chunks, declaresLength: declaresLength))
            })
            try server.start()
            defer { server.stop() }
            let reports = Reports()

            let response = try await URLSessionTransport().send(
                HTTPRequest(url: server.baseURL),
                observer: TransferObserver(download: reports.add)
            )

            #expect(response.body == LoopbackDownload.bytes(0..<(4 << 20)))
            let all = reports.all
            #expect(all.count > 1)
            #expect(all.map(\.completedBytes) == all.map(\.completedBytes).sorted())
            #expect(all.last?.completedBytes == Int64(4 << 20))
            #expect(all.allSatisfy { $0.expectedBytes == (declaresLength ? Int64(4 << 20) : nil) })
        }

        @Test func defaultImplementationReportsOnceForCustomTransports() async throws {
            struct Fixed: Transport {
                func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                    HTTPResponse(status: 200, body: Data(count: 10))
                }
            }
            let reports = Reports()

            _ = try await Fixed().send(
                HTTPRequest(url: URL(fileURLWithPath: "/")),
                observer: TransferObserver(download: reports.add)
            )

            #expect(reports.all == [TransferProgress(completedBytes: 10, expectedBytes: 10)])
        }
    }
}
