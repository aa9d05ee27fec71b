import CRUDKit
import Dispatch
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A small HTTP/1.1 server on 127.0.0.1 at an ephemeral port, for tests that go through the real URLSession stack.
///
/// It speaks keep-alive, reads `Content-Length` and chunked request bodies, serves many connections at once
/// (one thread each), answers malformed requests with 400, records every request it receives (raw bytes
/// included) and can misbehave on purpose through ``LoopbackReply/fault(_:)``. ``stop()`` closes every socket
/// and waits for every thread it started.
///
/// Its threads are bounded: it serves at most ``maximumConnections`` connections at once (256 by default), and
/// closes a connection on which the client sent nothing (or read nothing it was sent) for ``idleTimeout``
/// seconds (60 by default). A connection over the limit is not refused: it waits, connected, in the listen
/// backlog (1,024 deep) and is served as soon as another connection closes.
///
/// ```swift
/// let server = LoopbackServer { request in
///     .response(HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Data("hi".utf8)))
/// }
/// try server.start()
/// defer { server.stop() }
/// let url = server.baseURL.appendingPathComponent("hello")
/// ```
public final class LoopbackServer: Sendable {
    /// How a request is answered.
    enum Handler: Sendable {
        case async(@Sendable (LoopbackRequest) async throws -> LoopbackReply)
        case sync(@Sendable (LoopbackRequest) throws -> LoopbackReply)
    }

    struct State {
        var listener: Int32 = -1
        var wake: (read: Int32, write: Int32) = (-1, -1)
        var port = 0
        var started = false
        var stopping = false
        var connections: [Int: Int32] = [:]
        var accepted = 0
        var peakOpen = 0
        var received: [LoopbackRequest] = []
        var sockets: [UInt64] = []
        /// Whether the accept loop waits for a connection to end (it is at ``maximumConnections``).
        var waitingForSlot = false
        /// The server's threads still running (the accept loop and one per connection). Once the server is stopping,
        /// the last of them to end closes the wake pipe.
        var live = 0
    }

    /// The default of ``maximumConnections``.
    public static let defaultMaximumConnections = 256
    /// The default of ``idleTimeout``, in seconds.
    public static let defaultIdleTimeout: TimeInterval = 60

    let handler: Handler
    /// Bodies up to this many bytes are kept whole; larger ones are streamed into a checksum.
    public let bufferLimit: Int
    /// Whether each request is recorded (turn off for benchmarks).
    public let recordsRequests: Bool
    /// The most connections served at once, each on its own thread (at least 1). Connections over the limit wait
    /// in the listen backlog, connected but not yet read, until a served connection closes.
    public let maximumConnections: Int
    /// After this many seconds without a byte from the client (between requests or inside one) or without the
    /// client taking a byte of a reply, the connection is closed. Zero, negative, NaN or infinite: never.
    /// A reply that is slow on purpose (``LoopbackStream`` delays, ``LoopbackFault/neverAnswer``) is not
    /// idleness: the server is the one waiting.
    public let idleTimeout: TimeInterval
    let state = Locked(State())
    let threads = DispatchGroup()

    /// Creates a server that answers with `handler`; call ``start()`` before use.
    ///
    /// - Parameters:
    ///   - bufferLimit: Request bodies up to this many bytes are kept whole in ``LoopbackRequest/body``;
    ///     larger ones only as a length, a checksum and their first bytes.
    ///   - recordsRequests: Whether ``requests`` keeps every request.
    ///   - maximumConnections: The most connections served at once (see ``maximumConnections``); 256 by default.
    ///   - idleTimeout: Seconds of client silence after which a connection is closed (see ``idleTimeout``); 60 by
    ///     default.
    ///   - handler: Decides the reply for each request; a thrown error is answered with 500.
    public init(
        bufferLimit: Int = 8 << 20,
        recordsRequests: Bool = true,
        maximumConnections: Int = LoopbackServer.defaultMaximumConnections,
        idleTimeout: TimeInterval = LoopbackServer.defaultIdleTimeout,
        handler: @escaping @Sendable (LoopbackRequest) async throws -> LoopbackReply
    ) {
        self.handler = .async(handler)
        self.bufferLimit = bufferLimit
        self.recordsRequests = recordsRequests
        self.maximumConnections = max(1, maximumConnections)
        self.idleTimeout = idleTimeout
    }

    /// Creates a server whose handler runs synchronously on the connection's thread (the fastest form).
    ///
    /// - Parameters:
    ///   - bufferLimit: See ``init(bufferLimit:recordsRequests:maximumConnections:idleTimeout:handler:)``.
    ///   - recordsRequests: Whether ``requests`` keeps every request.
    ///   - maximumConnections: The most connections served at once (see ``maximumConnections``); 256 by default.
    ///   - idleTimeout: Seconds of client silence after which a connection is closed (see ``idleTimeout``); 60 by
    ///     default.
    ///   - synchronousHandler: Decides the reply for each request; a thrown error is answered with 500.
    public init(
        bufferLimit: Int = 8 << 20,
        recordsRequests: Bool = true,
        maximumConnections: Int = LoopbackServer.defaultMaximumConnections,
        idleTimeout: TimeInterval = LoopbackServer.defaultIdleTimeout,
        synchronousHandler: @escaping @Sendable (LoopbackRequest) throws -> LoopbackReply
    ) {
        self.handler = .sync(synchronousHandler)
        self.bufferLimit = bufferLimit
        self.recordsRequests = recordsRequests
        self.maximumConnections = max(1, maximumConnections)
        self.idleTimeout = idleTimeout
    }

    /// Creates a server that answers every request with the response `respond` returns.
    ///
    /// - Parameter respond: Builds the response from the request (its URL is built from the `Host` header).
    public convenience init(respond: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
        self.init { request in .response(try await respond(request.httpRequest)) }
    }

    deinit { stop() }

    /// The port the server listens on (0 before ``start()``).
    public var port: Int { state.withLock { $0.port } }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// Every request received so far, in the order their heads arrived.
    public var requests: [LoopbackRequest] { state.withLock { $0.received } }

    /// How many connections have been accepted so far (to measure connection reuse).
    public var connectionsAccepted: Int { state.withLock { $0.accepted } }

    /// The most connections that were open at the same time.
    public var peakOpenConnections: Int { state.withLock { $0.peakOpen } }

    /// How many connections are open now.
    public var openConnections: Int { state.withLock { $0.connections.count } }

    /// The inode numbers of every socket the server has opened (listener and connections), to check that
    /// none is left open after ``stop()`` (see `/proc/self/fd`).
    public var socketInodes: [UInt64] { state.withLock { $0.sockets } }

    /// Starts listening on 127.0.0.1 at a port the system chooses.
    ///
    /// - Throws: `POSIXError` when the socket cannot be opened, or when the server was already started.
    public func start() throws {
        let alreadyStarted = state.withLock { state in
            defer { state.started = true }
            return state.started
        }
        if alreadyStarted { throw POSIXError(.EALREADY) }
        let (listener, port) = try LoopbackSocket.bound(backlog: 1024, reusesAddress: true)
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            close(listener)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let inode = Self.inode(of: listener)
        // Stored, and the accept thread counted, in one step: a `stop()` from another thread either comes first
        // (and this start ends here, leaving nothing open) or finds the pipe to wake and the thread to wait for.
        let running = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.listener = listener
            state.wake = (pipeEnds[0], pipeEnds[1])
            state.port = port
            state.sockets.append(inode)
            state.live += 1
            threads.enter()
            return true
        }
        guard running else {
            for descriptor in [listener, pipeEnds[0], pipeEnds[1]] { close(descriptor) }
            return
        }
        let wakeRead = pipeEnds[0]
        let thread = Thread { [self] in
            acceptLoop(listener: listener, wake: wakeRead)
            state.withLock { threadEnded(&$0) }
            threads.leave()
        }
        thread.name = "LoopbackServer.accept"
        thread.start()
    }

    /// Stops the server: stops accepting, closes every connection, and returns once every thread has ended.
    ///
    /// Safe to call more than once and from several threads: each call returns once every thread has ended. It
    /// blocks its thread meanwhile, so call it from as few tasks at once as you can while an async handler runs: a
    /// handler waiting for a thread of the shared pool that every caller blocks never returns.
    ///
    /// Called from a handler (of any `LoopbackServer`, or a task that handler started), whose own thread cannot end
    /// before it returns, it returns at once, and the server ends its threads and closes its sockets once that
    /// handler has returned; the connection of the request being handled is closed too, so its reply is not sent.
    /// A started server is stopped only by this: its threads keep it alive, so dropping it without `stop()` leaves
    /// it listening.
    public func stop() {
        let stopping = state.withLock { state -> Bool in
            guard state.started else { return false }
            if !state.stopping {
                state.stopping = true
                for descriptor in state.connections.values { shutdown(descriptor, Int32(SHUT_RDWR)) }
                // Written under the lock: the wake pipe closes (under the lock) once the last thread has ended,
                // and its descriptor number may then be reused.
                if state.wake.write >= 0 {
                    var byte: UInt8 = 1
                    _ = write(state.wake.write, &byte, 1)
                }
                if state.live == 0 { Self.closeWakePipe(&state) }
            }
            return true
        }
        guard stopping, !Self.answering else { return }
        threads.wait()
    }

    /// A thread of the server ends: the last one, once the server is stopping, closes the wake pipe.
    func threadEnded(_ state: inout State) {
        state.live -= 1
        if state.stopping, state.live == 0 { Self.closeWakePipe(&state) }
    }

    /// Closes both ends of the wake pipe. Only once no thread can write to it or read it: a write to a pipe whose
    /// read end is closed raises SIGPIPE, which kills the whole process.
    private static func closeWakePipe(_ state: inout State) {
        if state.wake.read >= 0 { close(state.wake.read) }
        if state.wake.write >= 0 { close(state.wake.write) }
        state.wake = (-1, -1)
    }

    /// Whether the current thread or task is running a `LoopbackServer`'s handler (see ``stop()``).
    @TaskLocal static var answering = false

    var isStopping: Bool { state.withLock { $0.stopping } }

    private func acceptLoop(listener: Int32, wake: Int32) {
        // The wake pipe stays open until the server is stopping and every one of its threads has ended; the last
        // thread to end closes it (see `threadEnded(_:)`).
        defer { close(listener) }
        while true {
            // At the limit, only the wake pipe is watched: a connection that ends (or `stop()`) writes to it.
            let full = state.withLock { state -> Bool in
                state.waitingForSlot = state.connections.count >= maximumConnections
                return state.waitingForSlot
            }
            var entries = [
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&entries, full ? 1 : 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if entries[0].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                _ = read(wake, &bytes, bytes.count)
                if isStopping { return }
                continue
            }
            if full || entries[1].revents == 0 { continue }
            let descriptor = accept(listener, nil, nil)
            if descriptor < 0 {
                // Out of descriptors: the pending connection stays in the backlog; wait for the wake pipe (a stop,
                // a connection that ended) for at most 10 ms instead of spinning on the listener.
                if errno == EMFILE || errno == ENFILE {
                    var entry = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
                    _ = poll(&entry, 1, 10)
                }
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let inode = Self.inode(of: descriptor)
            let number = state.withLock { state -> Int? in
                guard !state.stopping else { return nil }
                state.accepted += 1
                state.connections[state.accepted] = descriptor
                state.peakOpen = max(state.peakOpen, state.connections.count)
                state.sockets.append(inode)
                state.live += 1
                return state.accepted
            }
            guard let number else {
                close(descriptor)
                return
            }
            threads.enter()
            let thread = Thread { [self] in
                serve(HTTP1Socket(descriptor: descriptor, idleTimeout: idleTimeout), number: number)
                state.withLock { state in
                    state.connections[number] = nil
                    close(descriptor)
                    if state.waitingForSlot, !state.stopping, state.wake.write >= 0 {
                        state.waitingForSlot = false
                        var byte: UInt8 = 1
                        _ = write(state.wake.write, &byte, 1)
                    }
                    threadEnded(&state)
                }
                threads.leave()
            }
            thread.name = "LoopbackServer.connection.\(number)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    func record(_ request: LoopbackRequest) {
        guard recordsRequests else { return }
        state.withLock { $0.received.append(request) }
    }

    private static func inode(of descriptor: Int32) -> UInt64 {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? UInt64(info.st_ino) : 0
    }
}
