import CRUDKit
import Foundation

/// A request as the ``LoopbackServer`` received it: the parsed fields, the raw bytes, and a checksum of the body.
///
/// Bodies up to the server's `bufferLimit` are kept whole in ``body`` and ``raw``. Larger bodies are streamed
/// through: only ``bodyLength``, ``bodyChecksum`` and the first bytes (``body`` then holds at most
/// `LoopbackRequest.keptPrefix` bytes) are kept, so a 50 MB upload never sits in memory.
public struct LoopbackRequest: Sendable {
    /// The method token, such as `POST`.
    public var method: String
    /// The request target exactly as sent, such as `/people/?page=2`.
    public var target: String
    /// The protocol version, `HTTP/1.1` or `HTTP/1.0`.
    public var version: String
    /// The header fields, in the order and spelling sent.
    public var headers: HTTPHeaders
    /// The body with any chunked framing removed; only its first bytes when ``isBodyComplete`` is `false`.
    public var body: Data
    /// Whether ``body`` holds the whole body.
    public var isBodyComplete: Bool
    /// The length of the decoded body in bytes.
    public var bodyLength: Int
    /// The 64-bit FNV-1a checksum of the decoded body (see ``LoopbackChecksum``).
    public var bodyChecksum: UInt64
    /// The bytes received for this request: the head, then the body as framed on the wire when it was kept.
    public var raw: Data
    /// Which connection it came on: connections are numbered from 1 in the order they were accepted.
    public var connection: Int
    /// The port the server listens on, to build ``url``.
    public var port: Int

    /// How many leading body bytes are kept when a body is too large to keep whole.
    public static let keptPrefix = 65_536

    /// The path of the target, without the query.
    public var path: String {
        String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    /// The query of the target, without the `?`; `nil` when there is none.
    public var query: String? {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return parts.count == 2 ? String(parts[1]) : nil
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The absolute URL, built from the `Host` header (so a request to `localhost` and one to `127.0.0.1`
    /// can be told apart).
    public var url: URL {
        let host = headers["Host"] ?? "127.0.0.1:\(port)"
        return URL(string: "http://\(host)\(target)") ?? URL(string: "http://127.0.0.1:\(port)\(path)")
            ?? URL(fileURLWithPath: "/")
    }

    /// The request as an ``HTTPRequest``, for handlers written against CRUDKit's own types.
    public var httpRequest: HTTPRequest {
        HTTPRequest(method: HTTPMethod(rawValue: method), url: url, headers: headers, body: .data(body))
    }
}

/// The 64-bit FNV-1a checksum the ``LoopbackServer`` computes over every request body.
///
/// ```swift
/// var checksum = LoopbackChecksum()
/// checksum.add(Data("hello".utf8))
/// checksum.value  // 0xa430d84680aabd0b
/// ```
public struct LoopbackChecksum: Sendable, Hashable {
    /// The checksum of the bytes added so far.
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Creates the checksum of no bytes.
    public init() {}

    /// Adds `bytes` to the checksum.
    public mutating func add(_ bytes: some Sequence<UInt8>) {
        var hash = value
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        value = hash
    }

    /// Adds the bytes in `buffer` to the checksum (faster than the generic form for large bodies).
    public mutating func add(_ buffer: UnsafeRawBufferPointer) {
        var hash = value
        for byte in buffer {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        value = hash
    }
}
