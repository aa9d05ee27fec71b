import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import Foundation

// The checks of the files a transport writes: a partial download file and a paused GET's kept bytes are owner-only
// (0600) while the transfer runs and gone after success, failure, cancellation and pause-then-cancel; a download's
// destination is replaced atomically and only on success, and a directory or a symbolic link there is refused.

extension TransportContract {
    /// `download(_:to:)`: the partial file beside the destination is `0600` while the body arrives and removed on
    /// cancellation and failure; a new destination is `0600`.
    public var downloadFilesOwnerOnly: Check {
        Check(name: "files: a download's partial file is 0600 and removed on cancel and failure") {
            try await Self.withFileServer(contract: self) { server, transport, directory in
                let destination = directory.appendingPathComponent("out.bin")
                try await Self.cancelStalledDownload(server, transport, to: destination) {
                    let partials = Self.entries(of: directory)
                    try Self.expect(partials.count == 1, "\(partials) beside the destination while running")
                    let mode = Self.mode(of: directory.appendingPathComponent(partials[0]))
                    try Self.expect(mode == 0o600, "the partial file is \(Self.octal(mode)), not 0600")
                }
                try Self.expect(Self.entries(of: directory).isEmpty, "\(Self.entries(of: directory)) left by a cancel")
                try await Self.expectFailure("a download cut mid-body") {
                    _ = try await transport.download(
                        Self.fileRequest(server, "broken"), to: destination, observer: .none)
                }
                try Self.expect(Self.entries(of: directory).isEmpty, "\(Self.entries(of: directory)) left by a failure")
                _ = try await transport.download(Self.fileRequest(server, "small"), to: destination, observer: .none)
                try Self.expect(
                    Self.entries(of: directory) == ["out.bin"], "\(Self.entries(of: directory)) after success")
                try Self.expect(Self.mode(of: destination) == 0o600, "a new destination is not 0600")
                try Self.expect((try? Data(contentsOf: destination)) == Self.smallBody, "the file is not the body")
            }
        }
    }

    /// `download(_:to:)` onto an existing regular file: untouched by a failed or cancelled download, replaced by a
    /// complete one, which keeps the old file's permission bits.
    public var downloadReplacesOnlyOnSuccess: Check {
        Check(name: "files: a download replaces an existing file only on success, keeping its mode") {
            try await Self.withFileServer(contract: self) { server, transport, directory in
                let destination = directory.appendingPathComponent("out.bin")
                try Self.plantOldFile(at: destination)
                try await Self.expectFailure("a download cut mid-body") {
                    _ = try await transport.download(
                        Self.fileRequest(server, "broken"), to: destination, observer: .none)
                }
                try Self.expectOldFile(at: destination, in: directory, "after a failed download")
                try await Self.cancelStalledDownload(server, transport, to: destination) {}
                try Self.expectOldFile(at: destination, in: directory, "after a cancelled download")
                _ = try await transport.download(Self.fileRequest(server, "small"), to: destination, observer: .none)
                try Self.expect((try? Data(contentsOf: destination)) == Self.smallBody, "the old file was not replaced")
                try Self.expect(Self.mode(of: destination) == 0o640, "the replaced file lost its mode 0640")
                try Self.expect(
                    Self.entries(of: directory) == ["out.bin"], "\(Self.entries(of: directory)) after success")
            }
        }
    }

    /// `download(_:to:)` onto a directory, a symbolic link or a dangling link fails before any request, touching
    /// nothing.
    public var downloadRefusesDirectoryAndLink: Check {
        Check(name: "files: a download onto a directory or a symbolic link is refused, untouched") {
            try await Self.withFileServer(contract: self) { server, transport, directory in
                try await Self.expectRefusals(in: directory, server: server) { destination in
                    _ = try await transport.download(
                        Self.fileRequest(server, "small"), to: destination, observer: .none)
                }
            }
        }
    }

    /// ``DownloadTask``: the partial file is `0600` while running and removed after cancel, pause-then-cancel and
    /// failure, an existing destination stays intact until a complete download replaces it (keeping its mode),
    /// and a directory or a symbolic link is refused.
    public var downloadTaskFiles: Check {
        Check(name: "files: a download task's partial file is 0600, removed on every path; destination rules") {
            try await Self.withFileServer(contract: self) { server, transport, directory in
                guard let resumable = transport as? any ResumableTransport else {
                    throw Failure("\(type(of: transport)) is not a ResumableTransport: it cannot run a DownloadTask")
                }
                let destination = directory.appendingPathComponent("out.bin")
                try Self.plantOldFile(at: destination)
                for pausing in [false, true] {
                    let (reached, signal) = AsyncStream.makeStream(of: Void.self)
                    let task = resumable.downloadTask(
                        Self.fileRequest(server, "stall"), to: destination,
                        observer: TransferObserver(download: { if $0.completedBytes > 0 { signal.yield() } }))
                    try await Self.first(of: reached, "no byte of the download arrived")
                    let partials = Self.entries(of: directory).filter { $0 != "out.bin" }
                    try Self.expect(partials.count == 1, "\(partials) beside the destination while running")
                    let mode = Self.mode(of: directory.appendingPathComponent(partials[0]))
                    try Self.expect(mode == 0o600, "the partial file is \(Self.octal(mode)), not 0600")
                    if pausing { task.pause() }
                    task.cancel()
                    try await Self.expectFailure("a cancelled download task") { _ = try await task.finished }
                    try Self.expectOldFile(
                        at: destination, in: directory, pausing ? "after pause-then-cancel" : "after cancel")
                }
                let broken = resumable.downloadTask(Self.fileRequest(server, "broken"), to: destination)
                try await Self.expectFailure("a download task cut mid-body") { _ = try await broken.finished }
                try Self.expectOldFile(at: destination, in: directory, "after a failed download task")
                let complete = resumable.downloadTask(Self.fileRequest(server, "small"), to: destination)
                _ = try await complete.finished
                try Self.expect((try? Data(contentsOf: destination)) == Self.smallBody, "the old file was not replaced")
                try Self.expect(Self.mode(of: destination) == 0o640, "the replaced file lost its mode 0640")
                try Self.expect(
                    Self.entries(of: directory) == ["out.bin"], "\(Self.entries(of: directory)) after success")
                let unnamed = try await resumable.downloadTask(Self.fileRequest(server, "small")).finished
                defer { try? FileManager.default.removeItem(at: unnamed) }
                try Self.expect(
                    unnamed.deletingLastPathComponent().standardizedFileURL
                        == (try PrivateFiles.directory()).standardizedFileURL,
                    "a download without a destination went to \(unnamed.path), not the private directory")
                try Self.expect(Self.mode(of: unnamed) == 0o600, "a download without a destination is not 0600")
                try await Self.expectRefusals(in: directory, server: server) { destination in
                    _ = try await resumable.downloadTask(Self.fileRequest(server, "small"), to: destination).finished
                }
            }
        }
    }

    /// A paused `GET`'s kept bytes are a `0600` file in the `0700` private directory while the body arrives, gone
    /// after success, failure, cancellation and pause-then-cancel; a resumable receive never writes through a link.
    public var handleFilesOwnerOnly: Check {
        Check(name: "files: a request handle's kept body is 0600 in the 0700 private directory, removed on every path")
        {
            try await Self.withFileServer(contract: self) { server, transport, directory in
                let privateDirectory = try PrivateFiles.directory()
                try Self.expect(Self.mode(of: privateDirectory) == 0o700, "the private directory is not 0700")
                let api = API(baseURL: server.baseURL, transport: transport)
                for ending in ["cancel", "pause-then-cancel", "failure", "success"] {
                    let (reached, signal) = AsyncStream.makeStream(of: Void.self)
                    var request = Request(.get, ending == "failure" ? "broken" : "stall", decoder: .response)
                    if ending == "success" { request = Request(.get, "small", decoder: .response) }
                    request.observer = TransferObserver(download: { if $0.completedBytes > 0 { signal.yield() } })
                    let handle = api.handle(for: request)
                    guard let kept = handle.keptFile else { throw Failure("the handle has no file for its body") }
                    try Self.expect(
                        kept.deletingLastPathComponent().standardizedFileURL == privateDirectory.standardizedFileURL,
                        "the kept body goes to \(kept.path), not the private directory")
                    if ending.hasSuffix("cancel") {
                        try await Self.first(of: reached, "no byte of the body arrived")
                        let mode = Self.mode(of: kept)
                        try Self.expect(mode == 0o600, "the kept body is \(Self.octal(mode)) while running, not 0600")
                        if ending == "pause-then-cancel" { _ = handle.pause() }
                        handle.cancel()
                    }
                    if ending == "success" {
                        let body = try await handle.value.body
                        try Self.expect(body == Self.smallBody, "the body is not the server's")
                    } else {
                        try await Self.expectFailure("the request ended by \(ending)") { _ = try await handle.value }
                    }
                    try Self.expect(
                        !Self.entries(of: privateDirectory).contains(kept.lastPathComponent),
                        "the kept body is left in the private directory after \(ending)")
                }
                if let resumable = transport as? any ResumableTransport {
                    let target = directory.appendingPathComponent("precious")
                    try Data("precious".utf8).write(to: target)
                    let link = directory.appendingPathComponent("kept")
                    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
                    try await Self.expectFailure("a receive into a symbolic link") {
                        _ = try await resumable.receive(
                            Self.fileRequest(server, "small"), into: link, continuingAt: 0, observer: .none
                        ) { _ in }
                    }
                    try Self.expect(
                        (try? Data(contentsOf: target)) == Data("precious".utf8), "the link's target was written")
                }
            }
        }
    }

    // MARK: - Helpers

    static let smallBody = LoopbackDownload.bytes(0..<300_000)

    /// A server with `/stall` (a download that stalls mid-body), `/broken` (cut mid-body) and `/small` (complete),
    /// a fresh transport and a fresh directory, removed afterwards.
    private static func withFileServer(
        contract: TransportContract, body: (LoopbackServer, any Transport, URL) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("crudkit-contract-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withServer(handleSettings, contract: contract) { request in
            if request.target.hasSuffix("stall") {
                return .download(LoopbackDownload(length: handleLength, stallAfter: handleStall))
            }
            if request.target.hasSuffix("broken") {
                return .fault(.closeMidBody(HTTPResponse(status: 200, body: Data(count: 200_000)), after: 100_000))
            }
            return .response(HTTPResponse(status: 200, body: smallBody))
        } body: { server, transport in
            try await body(server, transport, directory)
        }
    }

    static func fileRequest(_ server: LoopbackServer, _ path: String) -> HTTPRequest {
        HTTPRequest(url: server.baseURL.appendingPathComponent(path))
    }

    /// Starts a download of `/stall` to `destination`, runs `whileRunning` once bytes arrived, then cancels it and
    /// waits until it has ended.
    private static func cancelStalledDownload(
        _ server: LoopbackServer, _ transport: any Transport, to destination: URL,
        whileRunning: () throws -> Void
    ) async throws {
        let (reached, signal) = AsyncStream.makeStream(of: Void.self)
        let observer = TransferObserver(download: { if $0.completedBytes > 0 { signal.yield() } })
        let download = Task {
            try await transport.download(fileRequest(server, "stall"), to: destination, observer: observer)
        }
        do {
            try await first(of: reached, "no byte of the download arrived")
            try whileRunning()
        } catch {
            download.cancel()
            _ = await download.result
            throw error
        }
        download.cancel()
        if case .success = await download.result { throw Failure("a cancelled download succeeded") }
    }

    /// A directory with a file inside, a symbolic link to a file and a dangling link as destinations: each is
    /// refused with ``CRUDError/invalidRequest(reason:)`` saying why, nothing is touched, nothing is requested.
    private static func expectRefusals(
        in directory: URL, server: LoopbackServer, download: (URL) async throws -> Void
    ) async throws {
        let requestsBefore = server.requests.count
        let folder = directory.appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try Data("inside".utf8).write(to: folder.appendingPathComponent("inside.txt"))
        let target = directory.appendingPathComponent("precious")
        try Data("precious".utf8).write(to: target)
        let link = directory.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let dangling = directory.appendingPathComponent("dangling")
        let ghost = directory.appendingPathComponent("ghost")
        try FileManager.default.createSymbolicLink(at: dangling, withDestinationURL: ghost)
        for (destination, word) in [(folder, "directory"), (link, "symbolic link"), (dangling, "symbolic link")] {
            do {
                try await download(destination)
                throw Failure("a download onto a \(word) (\(destination.lastPathComponent)) succeeded")
            } catch let error as CRUDError {
                guard case .invalidRequest(let reason) = error, reason.contains(word) else {
                    throw Failure("a download onto a \(word) failed with \(error), not a refusal naming it")
                }
            }
        }
        try expect(
            (try? Data(contentsOf: folder.appendingPathComponent("inside.txt"))) == Data("inside".utf8),
            "the directory's contents were touched")
        try expect(entries(of: folder) == ["inside.txt"], "the directory holds \(entries(of: folder))")
        try expect((try? Data(contentsOf: target)) == Data("precious".utf8), "the link's target was written")
        try expect(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == target.path,
            "the symbolic link was replaced")
        try expect(!FileManager.default.fileExists(atPath: ghost.path), "the dangling link's target was created")
        try expect(
            entries(of: directory).filter { $0.hasSuffix(".partial") }.isEmpty, "a partial file was left behind")
        try expect(server.requests.count == requestsBefore, "a refused download still sent its request")
    }

    private static func plantOldFile(at url: URL) throws {
        try Data("old".utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: url.path)
    }

    private static func expectOldFile(at url: URL, in directory: URL, _ when: String) throws {
        try expect((try? Data(contentsOf: url)) == Data("old".utf8), "the existing file changed \(when)")
        try expect(mode(of: url) == 0o640, "the existing file's mode changed \(when)")
        try expect(entries(of: directory) == [url.lastPathComponent], "\(entries(of: directory)) left \(when)")
    }

    /// The names in `directory`, sorted.
    static func entries(of directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    /// The permission bits of the file at `url` (not following a link), or `nil` when there is none.
    static func mode(of url: URL) -> Int? {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes?[.posixPermissions] as? NSNumber).map { $0.intValue & 0o7777 }
    }

    static func octal(_ mode: Int?) -> String { mode.map { "0" + String($0, radix: 8) } ?? "missing" }

    /// Runs `operation`, which must throw.
    private static func expectFailure(_ what: String, _ operation: () async throws -> Void) async throws {
        do {
            try await operation()
        } catch {
            return
        }
        throw Failure("\(what) succeeded")
    }
}
