import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A plain TCP client for tests that must send bytes no HTTP client would (malformed requests, pipelining).
final class RawConnection {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        #if canImport(Darwin)
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(descriptor) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw POSIXError(.EPIPE) }
            offset += sent
        }
    }

    /// Reads one response (status, headers, a Content-Length body); `nil` when the server closed first.
    func readResponse() throws -> (status: Int, headers: [String: String], body: [UInt8])? {
        while true {
            if let end = headEnd() {
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                var lines = head.components(separatedBy: "\r\n")
                let status = Int(lines.removeFirst().split(separator: " ")[1]) ?? 0
                var headers: [String: String] = [:]
                for line in lines {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                while buffer.count < length {
                    guard try fill() else { return nil }
                }
                let body = Array(buffer[0..<length])
                buffer.removeFirst(length)
                return (status, headers, body)
            }
            guard try fill() else { return nil }
        }
    }

    /// Reads until the server closes; returns everything read.
    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        return buffer
    }

    private func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        if count == 0 { return false }
        buffer += chunk[0..<count]
        return true
    }
}

/// The socket inodes open in this process, from `/proc/self/fd` (empty where there is no `/proc`).
func openSocketInodes() -> Set<UInt64> {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
    var inodes = Set<UInt64>()
    for entry in entries {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
            target.hasPrefix("socket:[")
        else { continue }
        if let inode = UInt64(target.dropFirst(8).dropLast()) { inodes.insert(inode) }
    }
    return inodes
}

/// The number of open file descriptors, from `/proc/self/fd`.
func openDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
}

/// The pipes open in this process (`pipe:[inode]`), from `/proc/self/fd` (empty where there is no `/proc`).
func openPipes() -> Set<String> {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
    return Set(
        entries.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .filter { $0.hasPrefix("pipe:") })
}

/// Polls `condition` (yielding the thread, never sleeping) until it holds or `seconds` passed; whether it holds.
func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
    while !condition() {
        if DispatchTime.now().uptimeNanoseconds > end { return false }
        sched_yield()
    }
    return true
}
