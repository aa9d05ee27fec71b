import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// A `DownloadTask` says it ended (``DownloadTask/phase``, ``DownloadTask/finished``) only once its partial file
    /// is gone, as both promise. It used to publish the ending first and remove the file after, so a caller who
    /// looked in between found the partial file: the transport contract's file check failed so under
    /// ThreadSanitizer ("[.out.bin.….partial, out.bin] left after cancel").
    @Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct DownloadTaskEndingTests {
        /// Round after round, a thread watches the phase of a download that is cancelled mid-body, as often as it
        /// can, and looks for the partial file the moment the phase says the download ended.
        @Test func aCancelledDownloadTaskEndsOnlyOnceItsPartialFileIsGone() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .download(LoopbackDownload(length: 1 << 20, stallAfter: 1_000))
            })
            try server.start()
            defer { server.stop() }
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let destination = directory.appendingPathComponent("file")
            let transport = URLSessionTransport()
            var seen: [String] = []
            for round in 0..<20 {
                let (bytes, arrived) = AsyncStream.makeStream(of: Void.self)
                let task = transport.downloadTask(
                    HTTPRequest(url: server.baseURL.appendingPathComponent("stall")), to: destination,
                    observer: TransferObserver(download: { if $0.completedBytes > 0 { arrived.yield() } }))
                for await _ in bytes { break }
                let partials = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                try #require(partials.count == 1, "round \(round): \(partials) while running")
                let partial = directory.appendingPathComponent(partials[0]).path
                let (phase, left) = await withCheckedContinuation { continuation in
                    Thread {
                        let limit = DispatchTime.now().uptimeNanoseconds + 30_000_000_000
                        while task.phase == .running && DispatchTime.now().uptimeNanoseconds < limit {}
                        continuation.resume(returning: (task.phase, FileManager.default.fileExists(atPath: partial)))
                    }.start()
                    task.cancel()
                }
                if phase != .cancelled || left { seen.append("round \(round): \(phase), partial file left: \(left)") }
                await #expect(throws: CRUDError.self) { _ = try await task.finished }
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "round \(round)")
            }
            #expect(seen.isEmpty, "\(seen.count) of 20 ended with the partial file still there: \(seen)")
        }
    }
}
