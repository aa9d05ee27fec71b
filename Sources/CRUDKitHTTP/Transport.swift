@_spi(TransportKit) import CRUDKitCore
import Foundation

/// Sends one request and returns its response: the seam between CRUDKit and the network.
///
/// ``URLSessionTransport`` is the default. Plug in another (AsyncHTTPClient, an in-memory backend from
/// `CRUDKitTesting`, a stub) without touching anything else: only ``send(_:)`` is required; progress and
/// downloads to a file have default implementations built on it.
///
/// A transport throws ``CRUDError`` values: ``CRUDError/cancelled`` when the calling task is cancelled,
/// ``CRUDError/timedOut(_:)`` and `CRUDError/transport(underlying:)` for network failures. Any status,
/// 4xx and 5xx included, is a response, not an error.
public protocol Transport: Sendable {
    /// Sends `request` and returns the response, honouring the calling task's cancellation.
    ///
    /// - Parameter request: The fully built request, after the middleware has adapted it.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``CRUDError``.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse

    /// Sends `request`, telling `observer` how the upload and the download progress.
    ///
    /// The default implementation calls ``send(_:)`` and reports the download once, when it is complete.
    /// - Parameters:
    ///   - request: The fully built request.
    ///   - observer: Told the bytes sent and received.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``CRUDError``.
    func send(_ request: HTTPRequest, observer: TransferObserver) async throws -> HTTPResponse

    /// Sends `request` and writes a successful (2xx) response's body to `destination` instead of memory.
    ///
    /// The returned response has an empty body when the body went to the file; for any other status the file
    /// is not created and the body is in the response. A partly written file is removed on failure and
    /// cancellation. The default implementation receives the body in memory, then writes it.
    /// - Parameters:
    ///   - request: The fully built request.
    ///   - destination: The file to create or replace.
    ///   - observer: Told the bytes sent and received.
    /// - Returns: The response.
    /// - Throws: ``CRUDError``.
    func download(
        _ request: HTTPRequest, to destination: URL, observer: TransferObserver
    ) async throws
        -> HTTPResponse
}

extension Transport {
    /// Calls ``send(_:)`` and reports the whole body to `observer.download` once it has arrived.
    public func send(_ request: HTTPRequest, observer: TransferObserver) async throws -> HTTPResponse {
        let response = try await send(request)
        let length = Int64(response.body.count)
        observer.download?(TransferProgress(completedBytes: length, expectedBytes: length))
        return response
    }

    /// Receives the body with ``send(_:observer:)``, then writes a 2xx body to `destination` by the rules of
    /// ``PrivateFiles/moveIntoPlace(_:to:)`` (a directory or a symbolic link is refused before the request).
    public func download(
        _ request: HTTPRequest, to destination: URL, observer: TransferObserver
    ) async throws
        -> HTTPResponse
    {
        try PrivateFiles.checkDestination(destination)
        var response = try await send(request, observer: observer)
        guard response.isSuccess else { return response }
        let partial = PrivateFiles.partialFile(for: destination)
        defer { try? FileManager.default.removeItem(at: partial) }
        do {
            let handle = try PrivateFiles.create(at: partial)
            defer { try? handle.close() }
            try handle.write(contentsOf: response.body)
        } catch {
            throw error as? CRUDError ?? CRUDError.transport(underlying: error)
        }
        try PrivateFiles.moveIntoPlace(partial, to: destination)
        response.body = Data()
        return response
    }
}
