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
        // A small receive buffer, so a stalled upload stops after a few kilobytes rather than megabytes.
        (descriptor, port) = try LoopbackSocket.bound(
            backlog: listens ? 16 : nil, reusesAddress: false, receiveBuffer: 4096)
    }

    /// `http://127.0.0.1:<port>/`.
    var baseURL: URL {
        // The port is a number the system gave; the string is always a valid URL.
        URL(string: "http://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/")
    }

    /// Closes the socket (and every connection waiting in its backlog); call it once.
    func close() { LoopbackSocket.close(descriptor) }
}
