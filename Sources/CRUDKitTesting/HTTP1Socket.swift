import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a socket operation of the loopback server stopped.
enum HTTP1SocketError: Error, Equatable {
    /// The peer closed the connection (or the server is stopping).
    case closed
    /// A system call failed with this `errno`.
    case system(Int32)
}

/// A connected stream socket with an input buffer: blocking reads and writes for one connection thread.
///
/// Only the owning connection thread reads, writes and closes; ``LoopbackServer`` may call
/// `shutdown(2)` on the descriptor from another thread to wake a blocked read when it stops.
final class HTTP1Socket {
    /// The file descriptor.
    let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var scratch = [UInt8](repeating: 0, count: 65_536)

    /// - Parameters:
    ///   - descriptor: The connected socket.
    ///   - idleTimeout: Seconds a read may wait for a byte, or a write for room, before the connection counts as
    ///     idle: reads then see the end of the stream and writes fail. Zero, negative, NaN or infinite: no limit.
    init(descriptor: Int32, idleTimeout: TimeInterval = 0) {
        self.descriptor = descriptor
        guard idleTimeout > 0, idleTimeout < 1e9 else { return }
        let whole = idleTimeout.rounded(.down)
        var limit = timeval()
        limit.tv_sec = .init(whole)
        limit.tv_usec = .init(max(1, (idleTimeout - whole) * 1e6))
        let size = socklen_t(MemoryLayout<timeval>.size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, size)
    }

    /// The bytes received but not yet consumed.
    var buffered: ArraySlice<UInt8> { buffer[start...] }

    /// Marks `count` buffered bytes as consumed.
    func consume(_ count: Int) {
        start += count
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65_536 && start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// Reads more bytes into the buffer; returns `false` at end of stream, and when the idle timeout passed with
    /// nothing received.
    func fill() throws -> Bool {
        while true {
            let count = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: scratch[0..<count])
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            if errno == ECONNRESET || errno == ENOTCONN || errno == EPIPE { return false }
            if errno == EAGAIN || errno == EWOULDBLOCK { return false }  // idle
            throw HTTP1SocketError.system(errno)
        }
    }

    /// Takes exactly `count` bytes, reading as needed, handing them over in pieces as they arrive.
    func take(_ count: Int, into sink: (ArraySlice<UInt8>) -> Void) throws {
        var remaining = count
        while remaining > 0 {
            if buffered.isEmpty, try !fill() { throw HTTP1SocketError.closed }
            let piece = buffered.prefix(remaining)
            sink(piece)
            remaining -= piece.count
            consume(piece.count)
        }
    }

    /// Writes every byte of `bytes`.
    func write(_ bytes: some ContiguousBytes) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(descriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset, Self.sendFlags)
                if sent < 0 {
                    if errno == EINTR { continue }
                    if errno == EPIPE || errno == ECONNRESET { throw HTTP1SocketError.closed }
                    if errno == EAGAIN || errno == EWOULDBLOCK { throw HTTP1SocketError.closed }  // idle
                    throw HTTP1SocketError.system(errno)
                }
                offset += sent
            }
        }
    }

    /// Waits up to `seconds` (forever when `nil`) for the peer to close; returns `true` if it did.
    ///
    /// Bytes the peer sends meanwhile are kept in the buffer.
    func waitForClose(seconds: Double?) -> Bool {
        // Infinite (or past a year): no deadline; not a number: none to wait.
        let deadline = seconds.flatMap { seconds -> UInt64? in
            guard !(seconds >= 86_400 * 365) else { return nil }
            return DispatchTime.now().uptimeNanoseconds + UInt64(max(0, seconds) * 1e9)
        }
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let now = DispatchTime.now().uptimeNanoseconds
                if now >= deadline { return false }
                timeout = Int32(min(Double(deadline - now) / 1e6 + 1, Double(Int32.max)))
            }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, timeout)
            if ready < 0 && errno != EINTR { return true }
            if ready > 0 {
                if entry.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return true }
                if (try? fill()) != true { return true }
            }
        }
    }

    /// Sends a reset instead of an orderly close when the socket is closed.
    func abortOnClose() {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    #if canImport(Darwin)
    private static let sendFlags: Int32 = 0
    #else
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif
}
