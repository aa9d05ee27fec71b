import AsyncHTTPClient
import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import Foundation
import NIOCore
import NIOHTTP1

extension AsyncHTTPClientTransport: ResumableTransport {
    /// The configuration's `maximumResponseSize`.
    public var maximumResponseSize: Int { configuration.maximumResponseSize }

    /// Streams a 2xx body into `file` as it arrives, after the file's first `offset` bytes for a `206` that starts
    /// where the request's `Range` does, from byte 0 for any other 2xx; what was written stays in the file on failure and cancellation.
    ///
    /// This is what lets a ``CRUDKit/RequestHandle`` pause a `GET` mid-body and resume it with `Range`.
    /// - Parameters:
    ///   - request: The request; a ranged one carries `Range` and `If-Range`.
    ///   - file: The file to write into; created owner-only when missing, never through a symbolic link (see
    ///     ``CRUDKit/PrivateFiles/openForWriting(_:)``).
    ///   - offset: The bytes already in `file` that a `206` continues.
    ///   - observer: Told the bytes sent and received (the kept bytes included).
    ///   - head: Told the 2xx response head before any byte is written.
    /// - Returns: The response, with an empty body when the body went to `file`.
    /// - Throws: ``CRUDKit/CRUDError``.
    public func receive(
        _ request: HTTPRequest, into file: URL, continuingAt offset: Int64, observer: TransferObserver,
        head: @escaping @Sendable (HTTPResponse) -> Void
    ) async throws -> HTTPResponse {
        try await perform(
            request, observer: observer, destination: nil,
            appending: FileAppend(
                file: file, offset: offset, rangeStart: Self.requestedStart(request.headers["Range"]), head: head)
        )
    }

    /// The first byte position a `Range: bytes=N-` or `bytes=N-M` value asks for.
    static func requestedStart(_ value: String?) -> Int64? {
        guard let value, value.hasPrefix("bytes=") else { return nil }
        let bounds = value.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2 else { return nil }
        return ResponseStateMachine.digits(bounds[0])
    }

    /// Writes the pieces of a 2xx body into `file` from byte `offset` (the bytes a `206` continues; 0 for any
    /// other 2xx), truncating the file there first; `kept` (the kept bytes' report) is given once the file is open.
    @inline(never)
    static func append(
        _ body: HTTPClientResponse.Body, machine: inout ResponseStateMachine, to file: URL, at offset: Int64,
        kept: TransferProgress?, idleTimeout: TimeInterval, watchdog: IdleWatchdog?,
        observer: (@Sendable (TransferProgress) -> Void)?
    ) async throws {
        let handle = try PrivateFiles.openForWriting(file)
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(offset))
        try handle.seek(toOffset: UInt64(offset))
        if let kept { observer?(kept) }
        let final = try await pump(
            body, machine: &machine, idleTimeout: idleTimeout, watchdog: watchdog, observer: observer
        ) {
            try handle.write(contentsOf: Data($0.readableBytesView))
        }
        if let final { observer?(final) }
    }
}

/// Where ``AsyncHTTPClientTransport/receive(_:into:continuingAt:observer:head:)`` writes a 2xx body.
struct FileAppend: Sendable {
    var file: URL
    var offset: Int64
    /// Where the request's `Range` starts: a `206` continuing the file starts there.
    var rangeStart: Int64?
    var head: @Sendable (HTTPResponse) -> Void
}
