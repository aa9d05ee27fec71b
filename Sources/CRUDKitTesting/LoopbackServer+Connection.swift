import CRUDKit
import Dispatch
import Foundation

extension LoopbackServer {
    /// Serves one connection until the peer closes it, a reply closes it, or the server stops.
    func serve(_ socket: HTTP1Socket, number: Int) {
        while !isStopping {
            do {
                guard let (head, rawHead) = try HTTP1RequestHead.read(from: socket) else { return }
                if head.expectsContinue && head.framing != .none {
                    try socket.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                }
                let request = try readRequest(head: head, rawHead: rawHead, from: socket, connection: number)
                record(request)
                let reply = answer(request)
                guard try send(reply, to: request, keepAlive: head.keepAlive, on: socket) else { return }
            } catch let error as HTTP1ParseError {
                let response = HTTPResponse(
                    status: error.status,
                    headers: ["Content-Type": "text/plain", "Connection": "close"],
                    body: Data(error.reason.utf8)
                )
                try? socket.write(Self.head(of: response, length: response.body.count) + Array(response.body))
                return
            } catch {
                return
            }
        }
    }

    private func readRequest(
        head: HTTP1RequestHead,
        rawHead: [UInt8],
        from socket: HTTP1Socket,
        connection: Int
    ) throws -> LoopbackRequest {
        var body = BodyCollector(limit: bufferLimit, raw: Data(rawHead))
        switch head.framing {
        case .none:
            break
        case .length(let length):
            try socket.take(length) { body.add($0, framing: $0) }
        case .chunked:
            while true {
                let line = try Self.readLine(from: socket)
                body.addFraming(line + [13, 10])
                let sizeText = line.prefix { $0 != 59 }.filter { $0 != 32 && $0 != 9 }
                guard !sizeText.isEmpty, sizeText.count <= 15,
                    let size = Int(String(decoding: sizeText, as: UTF8.self), radix: 16)
                else { throw HTTP1ParseError.bad("bad chunk size") }
                if size == 0 {
                    while true {
                        let trailer = try Self.readLine(from: socket)
                        body.addFraming(trailer + [13, 10])
                        if trailer.isEmpty { break }
                    }
                    break
                }
                try socket.take(size) { body.add($0, framing: $0) }
                let end = try Self.readLine(from: socket)
                guard end.isEmpty else { throw HTTP1ParseError.bad("chunk not followed by CRLF") }
                body.addFraming([13, 10])
            }
        }
        return LoopbackRequest(
            method: head.method,
            target: head.target,
            version: head.version,
            headers: head.headers,
            body: body.kept,
            isBodyComplete: body.isComplete,
            bodyLength: body.length,
            bodyChecksum: body.checksum.value,
            raw: body.raw,
            connection: connection,
            port: port
        )
    }

    private static func readLine(from socket: HTTP1Socket) throws -> [UInt8] {
        var searched = 0
        while true {
            let bytes = socket.buffered
            var index = bytes.startIndex + searched
            while index + 1 < bytes.endIndex {
                if bytes[index] == 13 && bytes[index + 1] == 10 {
                    let line = Array(bytes[bytes.startIndex..<index])
                    socket.consume(line.count + 2)
                    return line
                }
                index += 1
            }
            guard bytes.count < 8192 else { throw HTTP1ParseError.bad("line too long") }
            searched = max(0, bytes.count - 1)
            guard try socket.fill() else { throw HTTP1SocketError.closed }
        }
    }

    private func answer(_ request: LoopbackRequest) -> LoopbackReply {
        let failed: @Sendable (any Error) -> LoopbackReply = { error in
            .response(HTTPResponse(status: 500, body: Data("handler failed: \(error)".utf8)))
        }
        switch handler {
        case .sync(let handler):
            do { return try Self.$answering.withValue(true) { try handler(request) } } catch { return failed(error) }
        case .async(let handler):
            let done = DispatchSemaphore(value: 0)
            let result = Locked<LoopbackReply?>(nil)
            Task {
                let reply: LoopbackReply
                do {
                    reply = try await Self.$answering.withValue(true) { try await handler(request) }
                } catch {
                    reply = failed(error)
                }
                result.withLock { $0 = reply }
                done.signal()
            }
            done.wait()
            return result.withLock { $0 } ?? failed(CancellationError())
        }
    }

    /// Sends `reply`; returns whether the connection stays open for another request.
    private func send(
        _ reply: LoopbackReply, to request: LoopbackRequest, keepAlive: Bool, on socket: HTTP1Socket
    )
        throws -> Bool
    {
        switch reply {
        case .response(var response):
            let closing = !keepAlive || response.headers["Connection"]?.lowercased() == "close"
            if closing { response.headers["Connection"] = "close" }
            let length = Int(response.headers["Content-Length"] ?? "") ?? response.body.count
            var bytes = Self.head(of: response, length: length)
            if request.method != "HEAD" && response.status != 204 && response.status != 304 {
                bytes += response.body
            }
            try socket.write(bytes)
            return !closing
        case .fault(let fault):
            try send(fault, on: socket)
            return false
        case .stream(let stream):
            return try send(stream, keepAlive: keepAlive, on: socket)
        case .download(let download):
            return try serve(download, to: request, keepAlive: keepAlive, on: socket)
        }
    }

    private func send(_ fault: LoopbackFault, on socket: HTTP1Socket) throws {
        switch fault {
        case .closeBeforeStatusLine:
            break
        case .closeMidHeaders:
            try socket.write(Array(LoopbackFault.midHeaders.utf8))
        case .closeMidBody(let response, let after):
            try socket.write(Self.head(of: response, length: response.body.count) + Array(response.body.prefix(after)))
        case .raw(let bytes):
            try socket.write(bytes)
        case .reset:
            socket.abortOnClose()
        case .neverAnswer:
            _ = socket.waitForClose(seconds: nil)
        }
    }

    private func send(_ stream: LoopbackStream, keepAlive: Bool, on socket: HTTP1Socket) throws -> Bool {
        if stream.delaysHead && socket.waitForClose(seconds: stream.delay) { return false }
        var response = HTTPResponse(status: stream.status, headers: stream.headers)
        if !keepAlive { response.headers["Connection"] = "close" }
        let length = stream.chunks.reduce(0) { $0 + $1.count }
        if !stream.declaresLength { response.headers["Transfer-Encoding"] = "chunked" }
        try socket.write(Self.head(of: response, length: stream.declaresLength ? length : nil))
        for (index, chunk) in stream.chunks.enumerated() {
            if index > 0 && stream.delay > 0 && socket.waitForClose(seconds: stream.delay) { return false }
            if stream.declaresLength {
                try socket.write(chunk)
            } else if !chunk.isEmpty {
                try socket.write(Array((String(chunk.count, radix: 16) + "\r\n").utf8) + Array(chunk) + [13, 10])
            }
        }
        if !stream.declaresLength { try socket.write(Array("0\r\n\r\n".utf8)) }
        return keepAlive
    }

    /// The status line and header fields of `response`, with `Content-Length: length` unless `length` is `nil`.
    static func head(of response: HTTPResponse, length: Int?) -> [UInt8] {
        var text = "HTTP/1.1 \(response.status) \(reasonPhrase(response.status))\r\n"
        for field in response.headers where !field.name.caseInsensitiveEquals("Content-Length") {
            text += "\(field.name): \(field.value)\r\n"
        }
        if let length { text += "Content-Length: \(length)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 416: "Range Not Satisfiable"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}

/// Collects a request body: whole up to a limit, then only its first bytes, a length and a checksum.
private struct BodyCollector {
    let limit: Int
    let headLength: Int
    var raw: Data
    var kept = Data()
    var length = 0
    var checksum = LoopbackChecksum()
    var isComplete = true

    init(limit: Int, raw: Data) {
        self.limit = limit
        self.headLength = raw.count
        self.raw = raw
    }

    mutating func add(_ bytes: ArraySlice<UInt8>, framing: ArraySlice<UInt8>) {
        length += bytes.count
        bytes.withUnsafeBytes { checksum.add($0) }
        if isComplete && length > limit {
            isComplete = false
            kept = kept.prefix(LoopbackRequest.keptPrefix)
            raw = raw.prefix(headLength)
        }
        if isComplete {
            kept.append(contentsOf: bytes)
            raw.append(contentsOf: framing)
        } else if kept.count < LoopbackRequest.keptPrefix {
            kept.append(contentsOf: bytes.prefix(LoopbackRequest.keptPrefix - kept.count))
        }
    }

    mutating func addFraming(_ bytes: [UInt8]) {
        if isComplete { raw.append(contentsOf: bytes) }
    }
}
