import CRUDKitCore
import Foundation

/// A transport that can append a response body to a file and keep what arrived when it is cancelled: what lets a
/// `RequestHandle` pause a `GET` in the middle of its body and resume it with `Range` instead of starting over.
///
/// ``URLSessionTransport`` conforms; so does `AsyncHTTPClientTransport` (package `CRUDKitAsyncHTTPClient`). With a
/// transport that does not, a paused `GET` starts again from its first byte when resumed.
public protocol ResumableTransport: Transport {
    /// The largest body, in bytes, a `RequestHandle` reads through ``receive(_:into:continuingAt:observer:head:)``
    /// before failing with ``CRUDError/responseTooLarge(limit:)``: the transport's limit for a body in memory.
    var maximumResponseSize: Int { get }

    /// Sends `request` as one exchange (a redirect comes back as it is, its body in the response) and writes a 2xx
    /// body into `file` as it arrives.
    ///
    /// When `offset` is above 0, a `206` whose `Content-Range` starts where the request's `Range` does (at
    /// `offset` without a `Range`) is written after the file's first `offset` bytes, and a `206` that starts
    /// elsewhere fails before anything is written; any other 2xx replaces the file from byte 0. The bytes written
    /// stay in the file when the call fails or its task is cancelled. Any other status comes back with its body in
    /// the response, and the file is left alone. Whether a `206` really continues the file (the same strong
    /// validator, the whole range and total asked for) is the caller's to judge from `head`, before any byte of the
    /// body is written; the transport never relabels the status or `Content-Range`.
    /// - Parameters:
    ///   - request: The fully built request; a ranged one carries `Range` and `If-Range`.
    ///   - file: The file to write into; created when missing.
    ///   - offset: The bytes already in `file` that a `206` continues.
    ///   - observer: Told the bytes sent and received.
    ///   - head: Told every 2xx response head (without body) before any byte is written, even a `206` the
    ///     transport then refuses.
    /// - Returns: The response; its body is empty when it went to `file`.
    /// - Throws: ``CRUDError``; a `206` that does not start where asked is a `CRUDError/transport(underlying:)`.
    func receive(
        _ request: HTTPRequest, into file: URL, continuingAt offset: Int64, observer: TransferObserver,
        head: @escaping @Sendable (HTTPResponse) -> Void
    ) async throws -> HTTPResponse
}

extension URLSessionTransport: ResumableTransport {
    /// The configuration's ``URLSessionTransport/Configuration/maximumResponseSize``.
    public var maximumResponseSize: Int { configuration.maximumResponseSize }

    /// Writes a 2xx body into `file` through the same machinery as ``downloadTask(_:to:observer:maximumRedirects:)``.
    public func receive(
        _ request: HTTPRequest, into file: URL, continuingAt offset: Int64, observer: TransferObserver,
        head: @escaping @Sendable (HTTPResponse) -> Void
    ) async throws -> HTTPResponse {
        let result = try await exchange(
            request,
            sink: .file(
                .init(
                    url: file, resumeOffset: offset,
                    rangeStart: URLSessionTransfer.requestedStart(request.headers["Range"]))),
            observer: observer, onFileResponse: head)
        return result.response
    }
}
