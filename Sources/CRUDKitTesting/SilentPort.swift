import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A TCP port on 127.0.0.1 held by a socket that never reads: either listening (connections complete in the
/// kernel's backlog but nothing is ever accepted or read, so an upload stalls once the buffers are full) or only
/// bound (a connection is refused), for the contract's fault checks.
///
/// The port stays reserved until ``close()``, so no other program can take it between the check's steps.
final class SilentPort: Sendable {
    /// The socket's descriptor.
    private let descriptor: Int32
    /// The port the system chose.
    let port: Int

    /// Binds a socket to a free port on 127.0.0.1; `listens` decides whether connections complete (and are never
    /// read) or are refused.
    ///
    /// - Parameter listens: Whether to listen.
    /// - Throws: `POSIXError` when the socket cannot be opened.
    init(listens: Bool) throws {
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        // A small receive buffer, so a stalled upload stops after a few kilobytes rather than megabytes.
        var small: Int32 = 4096
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, !listens || listen(descriptor, 16) == 0 else {
            let code = errno
            Self.close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `http://127.0.0.1:<port>/`.
    var baseURL: URL {
        // The port is a number the system gave; the string is always a valid URL.
        URL(string: "http://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/")
    }

    /// Closes the socket (and every connection waiting in its backlog); call it once.
    func close() { Self.close(descriptor) }

    private static func close(_ descriptor: Int32) {
        #if canImport(Darwin)
        _ = Darwin.close(descriptor)
        #elseif canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Musl.close(descriptor)
        #endif
    }
}
