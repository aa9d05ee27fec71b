import AsyncHTTPClient
import CRUDKit
import Foundation
import NIOCore

/// A request body in 64 KB pieces (bytes in memory, or a file read as the pieces are asked for), reporting the
/// bytes handed to AsyncHTTPClient through a throttled observer and stamping the exchange's watchdog as each piece
/// is taken (AsyncHTTPClient asks for the next piece only when the connection has room for it).
struct ReportingChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    /// The size of a piece.
    static let pieceSize = 64 << 10
    enum Source: Sendable {
        case data(Data)
        case file(URL)
    }
    let source: Source
    let size: Int64
    let observer: (@Sendable (TransferProgress) -> Void)?
    let watchdog: IdleWatchdog?

    init(
        source: Source, size: Int64? = nil, observer: (@Sendable (TransferProgress) -> Void)?,
        watchdog: IdleWatchdog? = nil
    ) {
        self.source = source
        if case .data(let data) = source { self.size = Int64(data.count) } else { self.size = size ?? 0 }
        self.observer = observer
        self.watchdog = watchdog
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let source: Source
        let handle: FileHandle?
        let watchdog: IdleWatchdog?
        var offset = 0
        var reporter: ProgressReporter

        mutating func next() async throws -> ByteBuffer? {
            watchdog?.stamp()
            let piece: Data
            switch source {
            case .data(let data):
                piece = data.subdata(
                    in: data.startIndex + offset..<data.startIndex
                        + Swift.min(data.count, offset + ReportingChunks.pieceSize))
            case .file(let url):
                guard let handle else {
                    throw CRUDError.invalidRequest(reason: "the body file \(url.path) cannot be read")
                }
                piece = try handle.read(upToCount: ReportingChunks.pieceSize) ?? Data()
            }
            guard !piece.isEmpty else {
                try? handle?.close()
                reporter.finish()
                return nil
            }
            offset += piece.count
            reporter.add(piece.count)
            return ByteBuffer(bytes: piece)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        var handle: FileHandle?
        if case .file(let url) = source { handle = try? FileHandle(forReadingFrom: url) }
        return AsyncIterator(
            source: source, handle: handle, watchdog: watchdog,
            reporter: ProgressReporter(expected: size, observer: observer))
    }
}
