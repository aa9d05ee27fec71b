import AsyncHTTPClient
import CRUDKit
import Foundation
import NIOCore
import NIOHTTP1

extension AsyncHTTPClientTransport: ResumableTransport {
    /// The configuration's `maximumResponseSize`.
    public var maximumResponseSize: Int { configuration.maximumResponseSize }

    /// Streams a 2xx body into `file` as it arrives, after the file's first `offset` bytes for a `206` that starts
    /// there, from byte 0 for any other 2xx; what was written stays in the file on failure and cancellation.
    ///
    /// This is what lets a ``CRUDKit/RequestHandle`` pause a `GET` mid-body and resume it with `Range`.
    /// - Parameters:
    ///   - request: The request; a ranged one carries `Range` and `If-Range`.
    ///   - file: The file to write into; created when missing.
    ///   - offset: The bytes already in `file` that a `206` continues.
    ///   - observer: Told the bytes sent and received (the kept bytes included).
    ///   - head: Told the 2xx response head before any byte is written.
    /// - Returns: The response, with an empty body when the body went to `file`.
    /// - Throws: ``CRUDKit/CRUDError``.
    public func receive(
        _ request: HTTPRequest, into file: URL, continuingAt offset: Int64, observer: TransferObserver,
        head: @escaping @Sendable (HTTPResponse) -> Void
    ) async throws -> HTTPResponse {
        try await follow(
            request, observer: observer, destination: nil, appending: FileAppend(file: file, offset: offset, head: head)
        )
    }

    /// Writes the pieces of a 2xx body into `target.file`, continuing its first bytes for a `206` from there.
    static func append(
        _ pieces: DeadlineBoundBody, status: Int, headers: NIOHTTP1.HTTPHeaders, to target: FileAppend,
        observer: (@Sendable (TransferProgress) -> Void)?
    ) async throws {
        var base: Int64 = 0
        if status == 206, target.offset > 0 {
            let range = headers.first(name: "Content-Range") ?? ""
            guard range.hasPrefix("bytes "),
                range.dropFirst(6).split(separator: "-").first.flatMap({ Int64($0) }) == target.offset
            else {
                throw CRUDError.transport(underlying: HTTPClientError.invalidHeaderFieldValues([range]))
            }
            base = target.offset
        }
        if !FileManager.default.fileExists(atPath: target.file.path) {
            _ = FileManager.default.createFile(atPath: target.file.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: target.file)
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(base))
        try handle.seek(toOffset: UInt64(base))
        let declared = headers.first(name: "Content-Length").flatMap(Int64.init)
        var reporter = ProgressReporter(expected: declared.map { $0 + base }, observer: observer)
        if base > 0 { reporter.add(Int(base)) }
        for try await piece in pieces {
            try handle.write(contentsOf: Data(piece.readableBytesView))
            reporter.add(piece.readableBytes)
        }
        reporter.finish()
    }
}

/// Where ``AsyncHTTPClientTransport/receive(_:into:continuingAt:observer:head:)`` writes a 2xx body.
struct FileAppend: Sendable {
    var file: URL
    var offset: Int64
    var head: @Sendable (HTTPResponse) -> Void
}
