import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Opening the TCP sockets of the loopback test servers: one bound to a free port on 127.0.0.1.
enum LoopbackSocket {
    /// A stream socket bound to a port the system chooses on 127.0.0.1, listening with `backlog` (or only bound,
    /// so connections are refused, when `backlog` is `nil`), and the port.
    ///
    /// - Parameters:
    ///   - backlog: The listen queue's length; `nil` to bind without listening.
    ///   - reusesAddress: Whether to set `SO_REUSEADDR`.
    ///   - receiveBuffer: A `SO_RCVBUF` size to ask for, or `nil` for the system's.
    /// - Throws: `POSIXError` when the socket cannot be opened, bound or put to listen.
    static func bound(backlog: Int32?, reusesAddress: Bool, receiveBuffer: Int32? = nil) throws -> (Int32, Int) {
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var one: Int32 = 1
        if reusesAddress {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        if var size = receiveBuffer {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, backlog.map({ listen(descriptor, $0) == 0 }) ?? true else {
            let code = errno
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Closes `descriptor`.
    static func close(_ descriptor: Int32) {
        #if canImport(Darwin)
        _ = Darwin.close(descriptor)
        #elseif canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Musl.close(descriptor)
        #endif
    }
}
