import CRUDKit
import Foundation

/// What the ``LoopbackServer`` does with a request: answer it, misbehave in a scripted way, stream a body
/// slowly, or serve a large generated download that honours range requests.
///
/// ```swift
/// let server = LoopbackServer { request in
///     switch request.path {
///     case "/slow": .stream(LoopbackStream(chunks: [Data("a".utf8), Data("b".utf8)], delay: 0.5))
///     case "/broken": .fault(.closeMidBody(HTTPResponse(status: 200, body: Data(count: 1000)), after: 10))
///     default: .response(HTTPResponse(status: 200, body: Data("ok".utf8)))
///     }
/// }
/// ```
public enum LoopbackReply: Sendable {
    /// Sends this response (a `Content-Length` is added when missing).
    case response(HTTPResponse)
    /// Breaks the exchange on purpose.
    case fault(LoopbackFault)
    /// Sends a status and headers, then a body piece by piece.
    case stream(LoopbackStream)
    /// Serves a generated body of any size, with `Range` and `If-Range` support.
    case download(LoopbackDownload)
}

/// A scripted failure, for tests of how a client copes with a broken server.
public enum LoopbackFault: Sendable {
    /// Closes the connection without sending a byte.
    case closeBeforeStatusLine
    /// Sends the status line and part of the headers (``midHeaders``), then closes.
    ///
    /// The bytes include a `Content-Length` line: FoundationNetworking on Linux (swift 6.3) crashes the process
    /// ("Transfer completed, but there's no response") when a connection closes mid-headers before any
    /// `Content-Length`, because libcurl then reports success; with the line it reports an error.
    case closeMidHeaders
    /// Sends the response's head with its full `Content-Length`, then only `after` bytes of the body, then closes:
    /// a body shorter than declared.
    case closeMidBody(HTTPResponse, after: Int)
    /// Sends exactly these bytes (any malformed response you like), then closes.
    case raw(Data)
    /// Resets the connection (TCP RST) without answering.
    case reset
    /// Never answers: holds the connection open until the client closes it or the server stops.
    case neverAnswer
}

extension LoopbackFault {
    /// What ``LoopbackFault/closeMidHeaders`` sends before closing.
    public static let midHeaders = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nContent-Ty"
}

/// A response whose body is sent in pieces, optionally with a pause before each piece.
///
/// Use it to make a client's idle timeout fire (a delay longer than the timeout) or to watch download progress.
public struct LoopbackStream: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields; `Content-Length` is added when ``declaresLength`` is `true`.
    public var headers: HTTPHeaders
    /// The pieces of the body, sent in order.
    public var chunks: [Data]
    /// Seconds to wait between pieces (and before the head when ``delaysHead`` is `true`); the first piece
    /// follows the head at once.
    public var delay: TimeInterval
    /// Whether to wait ``delay`` before sending the status line too.
    public var delaysHead: Bool
    /// Whether the head declares the total length (otherwise the body is sent with chunked transfer coding).
    public var declaresLength: Bool

    /// Creates a streamed response.
    public init(
        status: Int = 200,
        headers: HTTPHeaders = [:],
        chunks: [Data],
        delay: TimeInterval = 0,
        delaysHead: Bool = false,
        declaresLength: Bool = true
    ) {
        self.status = status
        self.headers = headers
        self.chunks = chunks
        self.delay = delay
        self.delaysHead = delaysHead
        self.declaresLength = declaresLength
    }
}

/// A generated body of any length, served with `ETag`, `Last-Modified` and range support.
///
/// Its bytes are a fixed pseudo-random pattern (see ``byte(at:)``), so a test can check a download without
/// the server keeping the body in memory. A ranged request (`Range: bytes=N-`, optionally with `If-Range`
/// matching the `ETag` or `Last-Modified`) gets 206 with the rest; without range support, 200 and the whole body.
public struct LoopbackDownload: Sendable {
    /// The length of the whole body in bytes.
    public var length: Int
    /// The entity tag sent, quoted, such as `"v1"`; `nil` sends none.
    public var etag: String?
    /// The `Last-Modified` value sent; `nil` sends none.
    public var lastModified: String?
    /// Whether `Range` requests are honoured; `false` answers 200 with the whole body to every request.
    public var honoursRanges: Bool
    /// When set, a request without a `Range` header gets only this many bytes, then the server stalls (holding
    /// the connection open) until the client closes it: a transfer that is certain to be mid-way when paused.
    public var stallAfter: Int?
    /// The content type sent.
    public var contentType: String

    /// Creates a generated download.
    public init(
        length: Int,
        etag: String? = "\"loopback-v1\"",
        lastModified: String? = nil,
        honoursRanges: Bool = true,
        stallAfter: Int? = nil,
        contentType: String = "application/octet-stream"
    ) {
        self.length = length
        self.etag = etag
        self.lastModified = lastModified
        self.honoursRanges = honoursRanges
        self.stallAfter = stallAfter
        self.contentType = contentType
    }

    /// The length of the repeating pattern: a prime, so it never lines up with buffer sizes.
    public static let period = 65_521

    /// The byte at `offset` of every generated body.
    public static func byte(at offset: Int) -> UInt8 { pattern[offset % period] }

    /// The bytes `range` of every generated body.
    public static func bytes(_ range: Range<Int>) -> Data {
        var data = Data(capacity: range.count)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let start = offset % period
            let count = min(period - start, range.upperBound - offset)
            data.append(contentsOf: pattern[start..<(start + count)])
            offset += count
        }
        return data
    }

    private static let pattern: [UInt8] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<period).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }()
}
