import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// Progress reaches an observer at a bounded rate: the first report, at most one per 1% (per 64 KiB without a
    /// total) and per 50 ms, and always the final one; never a repeated or smaller count.
    @Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct ProgressThrottleTests {
        private final class Reports: Sendable {
            private let values = Locked<[TransferProgress]>([])
            func add(_ progress: TransferProgress) { values.withLock { $0.append(progress) } }
            var all: [TransferProgress] { values.withLock { $0 } }
        }

        /// Checks the reports of one transfer of `total` bytes that took `seconds`: bounded (the first, the final,
        /// and at most one per 50 ms between them), strictly increasing, ending at the total.
        private static func check(_ reports: [TransferProgress], total: Int64, seconds: Double, bound: Int = .max) {
            let bound = min(bound, Int(seconds / 0.05) + 2)
            #expect(!reports.isEmpty)
            #expect(reports.count <= bound, "\(reports.count) reports for \(total) bytes")
            let counts = reports.map(\.completedBytes)
            #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 < $1 })
            #expect(reports.last?.completedBytes == total)
        }

        @Test(arguments: [true, false])
        func downloadProgressIsThrottled(declaresLength: Bool) async throws {
            // 100 KB in 1,000 writes of 100 bytes: one report per chunk would be about a thousand calls.
            let chunks = (0..<1000).map { LoopbackDownload.bytes(($0 * 100)..<(($0 + 1) * 100)) }
            let server = LoopbackServer(synchronousHandler: { _ in
                .stream(LoopbackStream(chunks: chunks, declaresLength: declaresLength))
            })
            try server.start()
            defer { server.stop() }
            let reports = Reports()

            let start = DispatchTime.now().uptimeNanoseconds

            let response = try await URLSessionTransport().send(
                HTTPRequest(url: server.baseURL), observer: TransferObserver(download: reports.add))

            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            #expect(response.body.count == 100_000)
            Self.check(reports.all, total: 100_000, seconds: seconds, bound: 102)
        }

        @Test func uploadProgressIsThrottled() async throws {
            let server = LoopbackServer(
                bufferLimit: 1 << 20,
                synchronousHandler: { request in
                    .response(HTTPResponse(status: 200, body: Data("\(request.bodyLength)".utf8)))
                })
            try server.start()
            defer { server.stop() }
            let reports = Reports()

            let start = DispatchTime.now().uptimeNanoseconds

            let response = try await URLSessionTransport().send(
                HTTPRequest(method: .post, url: server.baseURL, body: .data(Data(count: 100_000))),
                observer: TransferObserver(upload: reports.add))

            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            #expect(response.body == Data("100000".utf8))
            Self.check(reports.all, total: 100_000, seconds: seconds, bound: 102)
        }

        @Test func aSlowDownloadIsReportedAtMostEvery50Milliseconds() async throws {
            // 40 chunks of 2.5% each, 10 ms apart: each would pass the 1% step, so the 50 ms interval decides.
            let chunks = (0..<40).map { LoopbackDownload.bytes(($0 * 2500)..<(($0 + 1) * 2500)) }
            let server = LoopbackServer(synchronousHandler: { _ in
                .stream(LoopbackStream(chunks: chunks, delay: 0.01))
            })
            try server.start()
            defer { server.stop() }
            let reports = Reports()
            let start = DispatchTime.now().uptimeNanoseconds

            _ = try await URLSessionTransport().send(
                HTTPRequest(url: server.baseURL), observer: TransferObserver(download: reports.add))

            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            Self.check(reports.all, total: 100_000, seconds: elapsed)
            #expect(reports.all.count < 40)
        }

        @Test func aStalledTransferStillReportsTheBytesItHas() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .download(LoopbackDownload(length: 100_000, stallAfter: 30_000))
            })
            try server.start()
            defer { server.stop() }
            let (reached, signal) = AsyncStream.makeStream(of: Void.self)
            let observer = TransferObserver(download: { progress in
                if progress.completedBytes == 30_000 { signal.yield() }
            })
            let request = Task {
                try await URLSessionTransport().send(HTTPRequest(url: server.baseURL), observer: observer)
            }
            defer { request.cancel() }

            // The 30,000th byte may arrive within 50 ms of the last report; the held-back report still comes.
            let seen = try await withinSeconds(10) { () -> Bool in
                for await _ in reached { return true }
                return false
            }

            #expect(seen)
        }
    }
}
