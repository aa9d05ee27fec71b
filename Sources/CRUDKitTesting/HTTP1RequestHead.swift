import CRUDKit
import Foundation

/// Why the loopback server refused a request with 400 (or another 4xx/5xx status).
struct HTTP1ParseError: Error, Equatable {
    /// The status to answer with.
    var status: Int
    /// A short explanation, sent as the body.
    var reason: String

    static func bad(_ reason: String) -> HTTP1ParseError { HTTP1ParseError(status: 400, reason: reason) }
}

/// How a request's body is framed on the wire.
enum HTTP1BodyFraming: Equatable {
    case none
    case length(Int)
    case chunked
}

/// The request line and header fields of an HTTP/1.1 request, parsed strictly.
struct HTTP1RequestHead {
    var method: String
    var target: String
    var version: String
    var headers: HTTPHeaders
    var framing: HTTP1BodyFraming
    var keepAlive: Bool
    var expectsContinue: Bool

    /// The largest head the server accepts; longer ones are answered 431.
    static let maximumLength = 65_536

    /// Reads one head from `socket`: `nil` when the peer closed before sending anything.
    ///
    /// - Returns: The head and its raw bytes (CRLFCRLF included).
    /// - Throws: ``HTTP1ParseError`` for malformed input, ``HTTP1SocketError`` when the connection ends early.
    static func read(from socket: HTTP1Socket) throws -> (HTTP1RequestHead, [UInt8])? {
        var searched = 0
        while true {
            let bytes = socket.buffered
            if let end = headEnd(in: bytes, from: searched) {
                let raw = Array(bytes[bytes.startIndex..<end])
                socket.consume(raw.count)
                return (try parse(raw), raw)
            }
            if bytes.count > maximumLength {
                throw HTTP1ParseError(status: 431, reason: "request head too large")
            }
            searched = max(0, bytes.count - 3)
            if try !socket.fill() {
                if socket.buffered.isEmpty { return nil }
                throw HTTP1SocketError.closed
            }
        }
    }

    private static func headEnd(in bytes: ArraySlice<UInt8>, from offset: Int) -> Int? {
        var index = bytes.startIndex + offset
        while index + 3 < bytes.endIndex {
            if bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
                return index + 4
            }
            index += 1
        }
        return nil
    }

    /// Parses the raw head, which ends with CRLFCRLF.
    static func parse(_ raw: [UInt8]) throws -> HTTP1RequestHead {
        var lines = split(raw.dropLast(4))
        guard !lines.isEmpty else { throw HTTP1ParseError.bad("empty request") }
        let requestLine = lines.removeFirst()
        let parts = requestLine.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw HTTP1ParseError.bad("malformed request line") }
        guard !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte) else { throw HTTP1ParseError.bad("bad method") }
        guard let first = parts[1].first, first == 47 || parts[1].elementsEqual("*".utf8),
            parts[1].allSatisfy({ $0 > 32 && $0 < 127 })
        else { throw HTTP1ParseError.bad("bad request target") }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            throw HTTP1ParseError(status: 505, reason: "unsupported HTTP version")
        }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: 58) else { throw HTTP1ParseError.bad("header without colon") }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else { throw HTTP1ParseError.bad("bad header name") }
            let value = line[(colon + 1)...].drop { $0 == 32 || $0 == 9 }.reversed().drop { $0 == 32 || $0 == 9 }
            guard value.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else {
                throw HTTP1ParseError.bad("bad header value")
            }
            headers.add(
                name: String(decoding: name, as: UTF8.self),
                value: String(decoding: value.reversed(), as: UTF8.self)
            )
        }
        let head = HTTP1RequestHead(
            method: String(decoding: parts[0], as: UTF8.self),
            target: String(decoding: parts[1], as: UTF8.self),
            version: version,
            headers: headers,
            framing: try framing(of: headers),
            keepAlive: keepAlive(version: version, headers: headers),
            expectsContinue: headers["Expect"]?.lowercased() == "100-continue"
        )
        if version == "HTTP/1.1" && headers.values(for: "Host").count != 1 {
            throw HTTP1ParseError.bad("HTTP/1.1 needs exactly one Host header")
        }
        return head
    }

    private static func split(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 13, index + 1 < bytes.endIndex, bytes[index + 1] == 10 {
                lines.append(bytes[lineStart..<index])
                index += 2
                lineStart = index
            } else {
                index += 1
            }
        }
        lines.append(bytes[lineStart..<bytes.endIndex])
        return lines
    }

    private static func framing(of headers: HTTPHeaders) throws -> HTTP1BodyFraming {
        let encodings = headers.values(for: "Transfer-Encoding")
        let lengths = headers.values(for: "Content-Length")
        if !encodings.isEmpty {
            guard lengths.isEmpty else { throw HTTP1ParseError.bad("both Content-Length and Transfer-Encoding") }
            let codings = encodings.joined(separator: ",").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard codings == ["chunked"] else {
                throw HTTP1ParseError(status: 501, reason: "unsupported transfer coding")
            }
            return .chunked
        }
        guard let first = lengths.first else { return .none }
        guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.utf8.count <= 18,
            first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let length = Int(first)
        else { throw HTTP1ParseError.bad("bad Content-Length") }
        return length == 0 ? .none : .length(length)
    }

    private static func keepAlive(version: String, headers: HTTPHeaders) -> Bool {
        let options = headers.values(for: "Connection").joined(separator: ",").lowercased()
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if options.contains("close") { return false }
        return version == "HTTP/1.1" || options.contains("keep-alive")
    }

    /// RFC 9110 `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 48...57, 65...90, 97...122: true
        case 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: true
        default: false
        }
    }
}
