import CRUDKit
import Foundation

// The check of `DownloadTask` over a transport: a download to a file paused mid-body resumes byte-exact.

extension TransportContract {
    /// A ``DownloadTask`` paused mid-body resumes with `Range` and `If-Range` and leaves exactly the server's body
    /// in the destination file.
    public var downloadTaskPauseResume: Check {
        Check(name: "download task: paused download resumes byte-exact into the file") {
            try await Self.withServer(Self.handleSettings, contract: self) { _ in
                .download(LoopbackDownload(length: Self.handleLength, stallAfter: Self.handleStall))
            } body: { server, transport in
                guard let resumable = transport as? any ResumableTransport else {
                    throw Failure("\(type(of: transport)) is not a ResumableTransport: it cannot run a DownloadTask")
                }
                let destination = FileManager.default.temporaryDirectory
                    .appendingPathComponent("crudkit-contract-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: destination) }
                let (reached, signal) = AsyncStream.makeStream(of: Void.self)
                let download = resumable.downloadTask(
                    HTTPRequest(url: server.baseURL.appendingPathComponent("file")), to: destination,
                    observer: TransferObserver(download: { if $0.completedBytes > 0 { signal.yield() } }))
                try await Self.first(of: reached, "no byte of the download arrived")
                download.pause()
                try Self.expect(download.phase == .paused, "the download is \(download.phase), not paused")
                download.resume()
                let file = try await download.finished
                try Self.expect(file == destination, "the download finished at \(file.path), not the destination")
                let body = try Data(contentsOf: file)
                try Self.expect(
                    body == LoopbackDownload.bytes(0..<Self.handleLength),
                    "the file holds \(body.count) bytes that are not the server's")
                let requests = server.requests
                try Self.expect(requests.count == 2, "\(requests.count) requests, expected 2")
                let range = requests.last?.headers["Range"] ?? "none"
                try Self.expect(
                    range.hasPrefix("bytes=") && range != "bytes=0-", "the resumed request asked for range \(range)")
            }
        }
    }
}
