@_spi(TransportKit) import CRUDKitCore
@_spi(TransportKit) import CRUDKitHTTP
import Foundation

/// What a ``RequestHandle`` steers: whether its request may go on the wire, the read attempt it cancels to pause,
/// and the bytes a paused `GET` keeps (in a temporary file), continued by ``ResumeStateMachine``'s rule through the
/// ``ResumeDriver`` that ``DownloadTask`` uses too.
///
/// The end of the API's middleware chain hands every exchange of the handle's request here
/// (``exchange(_:observer:transport:)``); the cache and coalescing stages leave its reads alone.
package final class HandleControl: Sendable {
    /// The pause/resume mechanism shared with ``DownloadTask``.
    private let driver: ResumeDriver
    /// Where a `GET`'s body goes as it arrives, so a pause keeps it: a file in CRUDKit's private directory,
    /// created through the directory's descriptor and read back through its own (see `PrivateFiles.KeptFile`); why
    /// not when the directory cannot be made.
    private let file: Result<PrivateFiles.KeptFile, CRUDError>

    init(paused: Bool) {
        driver = ResumeDriver(paused: paused)
        file = Result { try PrivateFiles.KeptFile("handle") }.mapError {
            $0 as? CRUDError ?? .transport(underlying: $0)
        }
    }

    /// The file a `GET`'s body goes to (for tests: it is owner-only while the body arrives and gone at the end).
    package var keptFile: URL? { try? file.get().currentURL }

    // MARK: - Steering

    /// Pauses, or answers why not (`nil` when paused).
    func pause() -> String? { driver.pause() }

    func resume() { driver.resume() }

    func cancel() { driver.cancel() }

    /// Called once the request has completed, whichever way: removes the kept bytes.
    func end() {
        driver.end()
        if case .success(let file) = file { file.remove() }
    }

    // MARK: - Exchanges

    /// One exchange of the handle's request, its redirects followed by `redirects`: a read through the driver
    /// (continued across pauses for a `GET` over a ``ResumableTransport``, each attempt following the redirects), a
    /// write through the transport once running, marked as on the wire.
    func exchange(
        _ request: HTTPRequest, observer: TransferObserver, transport: any Transport, redirects: RedirectFollower
    ) async throws
        -> HTTPResponse
    {
        switch request.method {
        case .get, .head, .options, "TRACE":
            return try await read(request, observer: observer, transport: transport, redirects: redirects)
        default:
            return try await driver.write(method: request.method.rawValue) {
                try await redirects.follow(request) { try await transport.send($0, observer: observer) }
            }
        }
    }

    /// Reads `request` through the driver, holding the body in memory within the transport's maximum response size.
    private func read(
        _ request: HTTPRequest, observer: TransferObserver, transport: any Transport, redirects: RedirectFollower
    ) async throws
        -> HTTPResponse
    {
        let resumable = request.method == .get ? transport as? any ResumableTransport : nil
        let limit = resumable?.maximumResponseSize ?? Int.max
        let kept = try self.file.get()
        let file = kept.url
        let driver = self.driver
        let watched = TransferObserver(upload: observer.upload) { progress in
            observer.download?(progress)
            if progress.completedBytes > limit { driver.abort(.responseTooLarge(limit: limit)) }
        }
        var (response, fromFile) = try await driver.read(
            request, continuable: request.method == .get, transport: transport, file: file, observer: watched,
            redirects: redirects)
        guard fromFile else { return response }
        if kept.size > limit { throw CRUDError.responseTooLarge(limit: limit) }
        // Read back through the descriptor that wrote it, never by its name.
        response.body = try kept.contents()
        return response
    }
}
