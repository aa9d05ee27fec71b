import Foundation

#if os(Linux)
import Glibc

/// A hostile HTTP/1.1 server on 127.0.0.1 for the probes: each accepted connection runs `script` (with its
/// index, from 0) on a thread of its own, reading requests and writing whatever bytes the probe wants.
final class HostileServer: @unchecked Sendable {
    // Safety: `lock` guards `open`, `stopped` and `accepted`.
    private let lock = NSLock()
    private var open: Set<Int32> = []
    private var stopped = false
    private var accepted = 0
    private let listener: Int32
    /// The port bound.
    let port: Int

    /// Starts listening; `script` serves each connection.
    init(_ script: @escaping @Sendable (HostileConnection, Int) -> Void) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, size) }
        }
        guard bound == 0, listen(listener, 256) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        var length = size
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = listener
        Thread.detachNewThread { [self] in
            while true {
                let descriptor = accept(listener, nil, nil)
                if descriptor < 0 { return }
                let index: Int? = lock.withLock {
                    if stopped { return nil }
                    open.insert(descriptor)
                    accepted += 1
                    return accepted - 1
                }
                guard let index else {
                    close(descriptor)
                    return
                }
                var limit = timeval(tv_sec: 30, tv_usec: 0)
                _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                Thread.detachNewThread { [self] in
                    script(HostileConnection(descriptor: descriptor), index)
                    lock.withLock { _ = open.remove(descriptor) }
                    close(descriptor)
                }
            }
        }
    }

    /// The server's base URL.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The connections accepted so far.
    var connections: Int { lock.withLock { accepted } }

    /// Stops accepting and wakes every connection thread (their reads see the end of the stream).
    func stop() {
        let descriptors = lock.withLock { () -> Set<Int32> in
            stopped = true
            return open
        }
        _ = shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for descriptor in descriptors { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
    }
}

/// One connection of a ``HostileServer``: blocking reads and writes on the connection's thread.
final class HostileConnection: @unchecked Sendable {
    // Safety: used by its connection thread only.
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Reads one request (its head, and a body by `Content-Length`); the head's text, or nil at the end of the stream.
    func readRequest() -> String? {
        while true {
            if let end = headEnd() {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                var length = 0
                for line in head.split(separator: "\r\n") {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" {
                        length = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                }
                while buffer.count < length {
                    if !fill() { return nil }
                }
                buffer.removeFirst(length)
                return head
            }
            if !fill() { return nil }
        }
    }

    private func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func fill() -> Bool {
        var scratch = [UInt8](repeating: 0, count: 65_536)
        let count = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: scratch[..<count])
        return true
    }

    /// Writes `text` (UTF-8); false when the peer is gone.
    @discardableResult func send(_ text: String) -> Bool { send(Data(text.utf8)) }

    /// Writes `data`; false when the peer is gone.
    @discardableResult func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    /// Waits until the client closes the connection (or the server stops, or 30 s pass).
    func waitForClose() {
        while fill() { buffer.removeAll() }
    }
}
#endif
