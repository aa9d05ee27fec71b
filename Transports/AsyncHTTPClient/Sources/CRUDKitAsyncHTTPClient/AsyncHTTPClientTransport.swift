import AsyncHTTPClient
import CRUDKit
@_spi(TransportKit) import CRUDKitCore
@_spi(TransportKit) import CRUDKitHTTP
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import Tracing

/// A ``CRUDKit/Transport`` over AsyncHTTPClient, for Linux servers (Vapor, Hummingbird, service-to-service calls).
///
/// It sends one exchange per request: a redirect comes back as it is, with its `Location` and body (AsyncHTTPClient's
/// own redirect following is off; an `API` follows redirects at the end of its middleware chain, as for every
/// transport). It enforces the idle time and the deadline the request carries (an `API` stamps its defaults on every
/// request; cookies are the API's too: the headers go as the request carries them), streams response bodies with
/// back-pressure and stops reading as soon as a body passes ``Configuration/maximumResponseSize``, and maps every
/// failure to a ``CRUDKit/CRUDError``.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport()            // owns its client
/// let api = API(baseURL: url, transport: transport)
/// …
/// try await transport.shutdown()
/// ```
///
/// Pass ``init(client:configuration:)`` an `HTTPClient` you already run (such as `HTTPClient.shared`) to share
/// its connection pool; a shared client is never shut down by the transport.
public final class AsyncHTTPClientTransport: Transport {
    /// The settings in force.
    public let configuration: Configuration
    /// The client requests go through.
    public let client: HTTPClient
    let ownsClient: Bool
    /// The one timer behind every exchange's idle timeout.
    let sweeper: IdleSweeper
    /// The answers being collected on AsyncHTTPClient's event loops (see `collected(_:deadline:limit:idle:)`).
    let collecting = NIOLockedValueBox(0)
    /// Keeps collected answers within the owned client's connections per host (see ``ConnectionGate``); `nil` for a
    /// client you own, whose pool the transport does not know.
    let gate: ConnectionGate?
    /// Whether ``shutdown()`` was called (an owned client only): every request it ends, or that comes after it,
    /// fails with ``CRUDKit/TransportFailure/Reason/shutDown``.
    let isShutDown = NIOLockedValueBox(false)

    /// Creates a transport that owns a new `HTTPClient` built from `configuration`; call ``shutdown()`` when done.
    ///
    /// - Parameter configuration: Connections per host, the idle timeout, the size limit and the `User-Agent`.
    public init(configuration: Configuration = Configuration()) {
        let settings = Self.clientSettings(for: configuration)
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
        self.configuration = configuration
        self.ownsClient = true
        self.gate = ConnectionGate(limit: configuration.maximumConnectionsPerHost)
        self.sweeper = IdleSweeper(eventLoop: client.eventLoopGroup.next())
    }

    /// How long the owned client tries to open a connection, whatever the request's limits.
    static let connectTimeout = TimeAmount.seconds(10)

    /// The settings of the client a transport made with `configuration` owns.
    static func clientSettings(for configuration: Configuration) -> HTTPClient.Configuration {
        var settings = HTTPClient.Configuration(redirectConfiguration: .disallow)
        // No read timeout: AsyncHTTPClient's re-arms a timer on every part of every response; each exchange has an
        // IdleWatchdog instead (one timer for all of them), which also covers an upload the server stops reading.
        // Connecting counts against the exchange's idle time and deadline, as through URLSession: its watchdog (or
        // its idle deadline) ends a connection that does not come with `timedOut`. AsyncHTTPClient's own connect
        // timeout stays at 10 s: it bounds a connection attempt that outlives its request (the pool goes on
        // connecting, and `shutdown()` waits for it), and when it comes first it ends the request as
        // `transport(.cannotConnect)`, nothing having been sent.
        settings.timeout = .init(connect: connectTimeout, read: nil)
        settings.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, configuration.maximumConnectionsPerHost))
        // A refused connection fails at once with its cause (`.cannotConnect`), as through URLSession, instead of
        // being retried until the connect timeout; CRUDKit's RetryPolicy retries it (nothing was sent).
        settings.connectionPool.retryConnectionEstablishment = false
        // gzip and deflate answers are asked for and decoded; the decoded bytes are bounded by the size limit, so a
        // small body that inflates to gigabytes stops there (CRUDError.responseTooLarge).
        settings.decompression = .enabled(limit: .size(max(0, configuration.maximumResponseSize)))
        settings.tracing.tracer = Self.tracer(keeping: settings.tracing.tracer)
        return settings
    }

    /// The tracer an owned client is given: `tracer`, the one bootstrapped (`InstrumentationSystem.tracer`, which
    /// AsyncHTTPClient's configuration picks up), unless it is swift-distributed-tracing's `NoOpTracer`: that one
    /// records nothing yet costs every request a span and its attributes (about 4% of a request's CPU at 64 in
    /// flight, more counting its dynamic casts), so the client is given none.
    static func tracer(keeping tracer: (any Tracer)?) -> (any Tracer)? {
        tracer is NoOpTracer ? nil : tracer
    }

    /// Creates a transport over a client you own; the transport never shuts it down.
    ///
    /// The client's own redirect following should be off: the transport returns each redirect as it is, and an `API`
    /// follows it by CRUDKit's rules. Its
    /// `decompression` setting decides whether answers are asked for compressed and decoded (with a limit of at
    /// most `maximumResponseSize`, so a gzip bomb stops there).
    /// - Parameters:
    ///   - client: The client to send through, such as `HTTPClient.shared`.
    ///   - configuration: The size limit, the `User-Agent` and the idle timeout (the transport's watchdog, beside any
    ///     read timeout of the client); its connections per host are the client's business.
    public init(client: HTTPClient, configuration: Configuration = Configuration()) {
        self.client = client
        self.configuration = configuration
        self.ownsClient = false
        self.gate = nil
        self.sweeper = IdleSweeper(eventLoop: client.eventLoopGroup.next())
    }

    deinit {
        if ownsClient { client.shutdown { _ in } }
    }

    /// Shuts an owned client down, waiting for its connections to close; does nothing for a shared client.
    ///
    /// Every request it ends — on the wire, waiting for a connection, or sent afterwards — fails with one error that
    /// says so, `CRUDError.transport` with the reason ``CRUDKit/TransportFailure/Reason/shutDown``, which
    /// `RetryPolicy` never retries.
    ///
    /// ```swift
    /// } catch CRUDError.transport(let failure) where failure.reason == .shutDown {
    ///     // the service is stopping
    /// }
    /// ```
    /// - Throws: The client's shutdown error.
    public func shutdown() async throws {
        guard ownsClient else { return }
        isShutDown.withLockedValue { $0 = true }
        gate?.abandonAll(because: Self.shutDownFailure(HTTPClientError.alreadyShutdown))
        try await client.shutdown()
    }

    /// The error of a request that ``shutdown()`` ended, keeping what AsyncHTTPClient said.
    static func shutDownFailure(_ underlying: any Error) -> CRUDError {
        .transport(TransportFailure(.shutDown, underlying: underlying))
    }

    /// `error` as the request ends with it: ``shutDownFailure(_:)`` for a cancellation or a transport failure once
    /// the transport is shut down (unless the caller's own task was cancelled).
    func endingError(_ error: any Error) -> any Error {
        guard isShutDown.withLockedValue({ $0 }), !Task.isCancelled else { return error }
        switch error {
        case CRUDError.cancelled, CRUDError.transport: return Self.shutDownFailure(error)
        default: return error
        }
    }

    /// Sends `request` and returns its response; a redirect is returned as it is, not followed.
    ///
    /// - Parameter request: The request; its headers are checked first (see ``CRUDKit/HTTPRequest/validate()``).
    /// - Returns: The response, whatever its status.
    /// - Throws: ``CRUDKit/CRUDError``.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await perform(request, observer: .none, destination: nil)
    }

    /// Sends `request` like ``send(_:)``, telling `observer` how the upload and the download progress: the first
    /// report, then at most one per 1% of the total (64 KiB when unknown) and per 50 ms, and always the final one
    /// (see ``CRUDKit/ProgressThrottle``).
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - observer: Told the bytes sent and received.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``CRUDKit/CRUDError``.
    public func send(_ request: HTTPRequest, observer: TransferObserver) async throws -> HTTPResponse {
        try await perform(request, observer: observer, destination: nil)
    }

    /// Sends `request` and streams a successful (2xx) body into `destination` as it arrives, never holding it
    /// in memory; any other status comes back with its body in the response (within the size limit).
    ///
    /// The body is written to an owner-only temporary file beside `destination`, which replaces `destination`
    /// atomically once the body is complete (see ``CRUDKit/PrivateFiles/moveIntoPlace(_:to:)``); a failed or
    /// cancelled download leaves nothing behind and an existing file untouched. A directory or a symbolic link at
    /// `destination` is refused before the request is sent.
    /// - Parameters:
    ///   - request: The request.
    ///   - destination: The file to create or replace.
    ///   - observer: Told the bytes sent and received.
    /// - Returns: The response, with an empty body when the body went to the file.
    /// - Throws: ``CRUDKit/CRUDError``.
    public func download(
        _ request: HTTPRequest, to destination: URL, observer: TransferObserver
    ) async throws -> HTTPResponse {
        try PrivateFiles.checkDestination(destination)
        return try await perform(request, observer: observer, destination: destination)
    }

    /// Sends `request` as one exchange (a redirect comes back as it is) within its idle time and deadline.
    func perform(
        _ request: HTTPRequest, observer: TransferObserver, destination: URL?, appending: FileAppend? = nil
    ) async throws -> HTTPResponse {
        do {
            try request.validate()
            if isShutDown.withLockedValue({ $0 }) { throw Self.shutDownFailure(HTTPClientError.alreadyShutdown) }
            // The request's deadline only (an API stamps its default, and what is left of it on each redirect hop);
            // an infinite or not-a-number one is none, as URLSessionTransport reads it.
            let limit = request.deadline.flatMap { $0.isFinite ? $0 : nil }
            let deadline = limit.map { NIODeadline.now() + Self.amount($0) } ?? .distantFuture
            return try await exchange(
                request, deadline: deadline, limit: limit, observer: observer, destination: destination,
                appending: appending)
        } catch {
            throw endingError(error)
        }
    }

    /// Sends one request without following redirects, ended with ``CRUDKit/CRUDError/timedOut(_:)`` when nothing
    /// moves (no byte of the upload taken, no part of the answer) for the idle timeout.
    ///
    /// A request sent whole (no body, or bytes AsyncHTTPClient takes at once) whose answer is kept in memory
    /// without progress reports, the common case, is read without a task of its own (see
    /// `collected(_:deadline:limit:idle:)`). Another request sent whole gives no sign of life before the head:
    /// its idle time until then is a deadline, which AsyncHTTPClient keeps, in the calling task. Only the body is
    /// read in a task of its own, which its ``IdleWatchdog`` ends; a task started fresh for the whole exchange cost
    /// a `malloc` per async frame of AsyncHTTPClient's (each past the new task's first slab). A request whose
    /// upload goes in pieces, each stamping the watchdog, is watched from the start.
    func exchange(
        _ request: HTTPRequest, deadline: NIODeadline, limit: TimeInterval?, observer: TransferObserver,
        destination: URL?, appending: FileAppend? = nil
    ) async throws -> HTTPResponse {
        let idle = request.timeout ?? configuration.idleTimeout
        if destination == nil, appending == nil, observer.download == nil,
            Self.sendsWhole(request.body, upload: observer.upload)
        {
            return try await collected(request, deadline: deadline, limit: limit, idle: idle)
        }
        guard Self.sendsWhole(request.body, upload: observer.upload) else {
            let watchdog = IdleWatchdog(
                idle: Self.nanoseconds(idle), deadline: deadline.uptimeNanoseconds, sweeper: sweeper)
            return try await watched(by: watchdog, idle: idle, limit: limit) {
                let (body, head) = try await self.head(
                    of: request, deadline: deadline, headBy: deadline, idleLimit: nil, limit: limit, observer: observer,
                    destination: destination, appending: appending, watchdog: watchdog)
                return try await self.body(
                    body, head: head, of: request, limit: limit, observer: observer, destination: destination,
                    appending: appending, watchdog: watchdog)
            }
        }
        let now = NIODeadline.now().uptimeNanoseconds
        let (idleEnd, overflow) = now.addingReportingOverflow(Self.nanoseconds(idle))
        let idleDeadline = overflow ? NIODeadline.distantFuture : NIODeadline.uptimeNanoseconds(idleEnd)
        let (body, head) = try await self.head(
            of: request, deadline: deadline, headBy: min(deadline, idleDeadline),
            idleLimit: idleDeadline < deadline ? idle : nil, limit: limit, observer: observer,
            destination: destination, appending: appending, watchdog: nil)
        // Created at the head, its first sign of life; it keeps the deadline too, so a body that stalls ends at the
        // earlier of the two (as the collected path and URLSessionTransport end it).
        let watchdog = IdleWatchdog(
            idle: Self.nanoseconds(idle), deadline: deadline.uptimeNanoseconds, sweeper: sweeper)
        return try await watched(by: watchdog, idle: idle, limit: limit) {
            try await self.body(
                body, head: head, of: request, limit: limit, observer: observer, destination: destination,
                appending: appending, watchdog: watchdog)
        }
    }

    /// Runs `operation` in a task of its own that `watchdog` cancels when nothing moved for the idle time (the
    /// error is then ``CRUDKit/CRUDError/timedOut(_:)``); cancelling the calling task cancels it too.
    private func watched(
        by watchdog: IdleWatchdog, idle: TimeInterval, limit: TimeInterval?,
        _ operation: @escaping @Sendable () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let task = Task(operation: operation)
        watchdog.arm { task.cancel() }
        defer { watchdog.disarm() }
        do {
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch {
            switch watchdog.fired {
            case .idle?: throw CRUDError.timedOut(.idle(idle))
            case .deadline?: throw CRUDError.timedOut(limit.map { .deadline($0) } ?? .idle(idle))
            case nil: throw error
            }
        }
    }

    /// Sends `request` and waits for the head of the answer: its body, still to read, and what the head says.
    ///
    /// `headBy` ends the wait (`deadline`, the exchange's, is the body's); when it is the idle time's (`idleLimit`,
    /// the idle timeout in seconds), passing it fails with ``CRUDKit/CRUDError/Timeout/idle(_:)``. The work between suspensions is done by synchronous
    /// helpers (`outgoing(_:observer:destination:appending:watchdog:)`, `ResponseHead`), so this frame holds little
    /// more than what crosses an `await`.
    private func head(
        of request: HTTPRequest, deadline: NIODeadline, headBy: NIODeadline, idleLimit: TimeInterval?,
        limit: TimeInterval?,
        observer: TransferObserver, destination: URL?, appending: FileAppend?, watchdog: IdleWatchdog?
    ) async throws -> (HTTPClientResponse.Body, ResponseHead) {
        let outgoing = try outgoing(
            request, observer: observer, destination: destination, appending: appending, watchdog: watchdog)
        do {
            try Task.checkCancellation()
            let answer = try await client.execute(outgoing, deadline: headBy)
            watchdog?.stamp()
            let head = try ResponseHead(
                answer.status, answer.headers, of: request, transport: self, deadline: deadline, limit: limit,
                observer: observer, destination: destination, appending: appending)
            return (answer.body, head)
        } catch {
            throw failure(error, of: request, limit: limit, idleLimit: idleLimit)
        }
    }

    /// Reads the body the head announced, into memory or a file, stamping `watchdog` as its pieces arrive.
    @inline(never)
    private func body(
        _ body: HTTPClientResponse.Body, head: ResponseHead, of request: HTTPRequest, limit: TimeInterval?,
        observer: TransferObserver, destination: URL?, appending: FileAppend?, watchdog: IdleWatchdog
    ) async throws -> HTTPResponse {
        var machine = head.machine
        let idle = request.timeout ?? configuration.idleTimeout
        // A followed redirect whose body is not read: the body's stream, dropped unread, ends the request (and its
        // connection).
        if head.skipsBody { return HTTPResponse(status: head.status, headers: head.headers, url: request.url) }
        do {
            let data: Data
            if let (offset, progress) = head.file {
                if let appending {
                    try await Self.append(
                        body, machine: &machine, to: appending.file, at: offset, kept: progress,
                        idleTimeout: idle, watchdog: watchdog, observer: observer.download)
                } else if let destination {
                    try await Self.write(
                        body, machine: &machine, to: destination, idleTimeout: idle, watchdog: watchdog,
                        observer: observer.download)
                }
                data = Data()
            } else {
                data = try await Self.collect(
                    body, machine: &machine, idleTimeout: idle, watchdog: watchdog, observer: observer.download)
            }
            return HTTPResponse(status: head.status, headers: head.headers, body: data, url: request.url)
        } catch {
            throw failure(error, of: request, limit: limit)
        }
    }

    /// The request for AsyncHTTPClient: method, URL, the headers (see ``fields(of:fileBound:)``) and the body.
    @inline(never)
    func outgoing(
        _ request: HTTPRequest, observer: TransferObserver, destination: URL?, appending: FileAppend?,
        watchdog: IdleWatchdog?
    ) throws -> HTTPClientRequest {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers = fields(of: request, fileBound: destination != nil || appending != nil)
        outgoing.body = try Self.body(request.body, upload: observer.upload, watchdog: watchdog)
        return outgoing
    }

    /// The header fields of `request` for AsyncHTTPClient, with the transport's `User-Agent` and, for a body bound
    /// for a file (`fileBound`), `Accept-Encoding: identity`, unless the request sets them.
    func fields(of request: HTTPRequest, fileBound: Bool) -> NIOHTTP1.HTTPHeaders {
        var fields = NIOHTTP1.HTTPHeaders()
        fields.reserveCapacity(request.headers.count + 2)
        var hasUserAgent = false
        var hasAcceptEncoding = false
        for field in request.headers {
            fields.add(name: field.name, value: field.value)
            if Self.nameIs(field.name, "user-agent") { hasUserAgent = true }
            if Self.nameIs(field.name, "accept-encoding") { hasAcceptEncoding = true }
        }
        if !hasUserAgent {
            fields.add(name: "User-Agent", value: configuration.userAgent)
        }
        // A body bound for a file is asked for as it is stored, so its bytes (and a resumed range) are the
        // server's; an answer held in memory is asked for compressed (AsyncHTTPClient's decompressor adds
        // `Accept-Encoding: deflate, gzip` to a request without one).
        if !hasAcceptEncoding && fileBound {
            fields.add(name: "Accept-Encoding", value: "identity")
        }
        return fields
    }

    /// `error`, thrown while sending `request` or reading its answer, as a ``CRUDKit/CRUDError`` (boxed here: the
    /// async frames that throw it hold a reference, not the error's value).
    @inline(never)
    func failure(
        _ error: any Error, of request: HTTPRequest, limit: TimeInterval?, idleLimit: TimeInterval? = nil
    ) -> any Error {
        // AsyncHTTPClient's deadline was the idle time's (see `exchange`).
        if let idleLimit, (error as? HTTPClientError) == .deadlineExceeded {
            return CRUDError.timedOut(.idle(idleLimit))
        }
        return Self.crudError(
            for: error, idleTimeout: request.timeout ?? configuration.idleTimeout, deadline: limit,
            maximumSize: configuration.maximumResponseSize)
    }

    /// Feeds the body's pieces through `machine`, handing each piece it keeps or writes to `consume` and
    /// reporting progress after it; returns the final report, which the caller gives once the body is in place.
    @inline(never)
    static func pump(
        _ body: HTTPClientResponse.Body, machine: inout ResponseStateMachine, idleTimeout: TimeInterval,
        watchdog: IdleWatchdog?, observer: (@Sendable (TransferProgress) -> Void)?,
        consume: (ByteBuffer) throws -> Void
    ) async throws -> TransferProgress? {
        // The work per piece and at the end is in synchronous helpers: this frame stays small (see `exchange`).
        var received = false
        do {
            for try await piece in body {
                received = true
                // A followed redirect's body past the drain: left unread, which ends the request and its connection.
                if try take(piece, machine: &machine, watchdog: watchdog, observer: observer, consume: consume) {
                    break
                }
            }
        } catch {
            guard endsBodiless(error, bodiless: machine.bodiless, received: received) else {
                throw failure(error, machine: &machine, idleTimeout: idleTimeout)
            }
        }
        return ended(&machine)
    }

    /// One piece of the body through `machine`: handed to `consume` when kept or written, then progress reported;
    /// dropped when it belongs to a followed redirect's body.
    /// - Returns: Whether to stop reading (a followed redirect's body passed the drain).
    @inline(never)
    static func take(
        _ piece: ByteBuffer, machine: inout ResponseStateMachine, watchdog: IdleWatchdog?,
        observer: (@Sendable (TransferProgress) -> Void)?, consume: (ByteBuffer) throws -> Void
    ) throws -> Bool {
        let now = NIODeadline.now().uptimeNanoseconds
        watchdog?.stamp(now)
        switch machine.receivedPiece(count: piece.readableBytes, now: now) {
        case .keep(let progress), .write(let progress):
            try consume(piece)
            if let progress { observer?(progress) }
        case .fail(let error):
            throw error
        case .stop:
            return true
        case .none, .collect, .openFile, .finish, .drop:
            break
        }
        return false
    }

    /// Reading the body failed with `error`: the failure to throw, once through `machine` (boxed, as above).
    @inline(never)
    static func failure(
        _ error: any Error, machine: inout ResponseStateMachine, idleTimeout: TimeInterval
    ) -> any Error {
        let mapped = crudError(
            for: error, idleTimeout: idleTimeout, deadline: machine.limit, maximumSize: machine.maximumBodySize)
        if case .fail(let failure) = machine.failed(mapped) { return failure }
        return mapped
    }

    /// The body ended (or a followed redirect's body is no longer read): the final report the caller gives once the
    /// body is in place, if any.
    @inline(never)
    static func ended(_ machine: inout ResponseStateMachine) -> TransferProgress? {
        if case .finish(let final) = machine.bodyEnded(now: NIODeadline.now().uptimeNanoseconds) { return final }
        return nil
    }

    /// Reads the body into memory, failing as soon as it passes the size limit (never holding more than one piece
    /// beyond it), and reports progress through `observer`.
    @inline(never)
    static func collect(
        _ body: HTTPClientResponse.Body, machine: inout ResponseStateMachine, idleTimeout: TimeInterval,
        watchdog: IdleWatchdog?, observer: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> Data {
        // Room for the declared length up front (within the limit, and at most 1 MiB before any byte arrived): a
        // small body's pieces are copied in once.
        let declared = min(machine.expected ?? 0, Int64(machine.maximumBodySize), 1 << 20)
        var data = Data(capacity: Int(clamping: declared))
        let final = try await pump(
            body, machine: &machine, idleTimeout: idleTimeout, watchdog: watchdog, observer: observer
        ) { piece in
            // One copy of the piece's bytes (appending its byte view goes through the generic sequence path).
            piece.withUnsafeReadableBytes { bytes in
                if let start = bytes.baseAddress, !bytes.isEmpty {
                    data.append(start.assumingMemoryBound(to: UInt8.self), count: bytes.count)
                }
            }
        }
        if let final { observer?(final) }
        return data
    }

    /// Streams the body into an owner-only temporary file beside `destination`, then moves it into place.
    @inline(never)
    static func write(
        _ body: HTTPClientResponse.Body, machine: inout ResponseStateMachine, to destination: URL,
        idleTimeout: TimeInterval, watchdog: IdleWatchdog?, observer: (@Sendable (TransferProgress) -> Void)?
    ) async throws {
        let partial = PrivateFiles.partialFile(for: destination)
        let handle = try PrivateFiles.create(at: partial)
        var finished = false
        defer {
            try? handle.close()
            if !finished { try? FileManager.default.removeItem(at: partial) }
        }
        let final = try await pump(
            body, machine: &machine, idleTimeout: idleTimeout, watchdog: watchdog, observer: observer
        ) {
            try handle.write(contentsOf: Data($0.readableBytesView))
        }
        try handle.close()
        try PrivateFiles.moveIntoPlace(partial, to: destination)
        finished = true
        if let final { observer?(final) }
    }

    /// Whether AsyncHTTPClient takes `body` at once (see ``body(_:upload:watchdog:)``): no upload piece can stamp
    /// a watchdog before the answer's head.
    static func sendsWhole(_ body: HTTPBody, upload: (@Sendable (TransferProgress) -> Void)?) -> Bool {
        switch body {
        case .none: true
        case .data(let data): upload == nil && data.count <= ReportingChunks.pieceSize
        case .file: false
        }
    }

    /// The request body for AsyncHTTPClient: bytes in memory (up to 64 KiB at once, larger ones in pieces that
    /// stamp `watchdog` as AsyncHTTPClient takes them), or a file streamed in pieces.
    static func body(
        _ body: HTTPBody, upload: (@Sendable (TransferProgress) -> Void)? = nil, watchdog: IdleWatchdog? = nil
    ) throws -> HTTPClientRequest.Body? {
        switch body {
        case .none: return nil
        case .data(let data):
            if upload == nil && data.count <= ReportingChunks.pieceSize { return .bytes(ByteBuffer(bytes: data)) }
            return .stream(
                ReportingChunks(source: .data(data), observer: upload, watchdog: watchdog),
                length: .known(Int64(data.count)))
        case .file(let url):
            let size: Int64
            do {
                let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
                size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            } catch {
                throw CRUDError.invalidRequest(reason: "the body file \(url.path) cannot be read")
            }
            return .stream(
                ReportingChunks(source: .file(url), size: size, observer: upload, watchdog: watchdog),
                length: .known(size))
        }
    }

    /// Whether the header name `name` is `lowercased` (given in lower case), ignoring ASCII case.
    static func nameIs(_ name: String, _ lowercased: StaticString) -> Bool {
        guard name.utf8.count == lowercased.utf8CodeUnitCount else { return false }
        var expected = lowercased.utf8Start
        for byte in name.utf8 {
            let lower = byte >= 65 && byte <= 90 ? byte + 32 : byte
            if lower != expected.pointee { return false }
            expected += 1
        }
        return true
    }

    /// `seconds` in nanoseconds, at least one millisecond and at most a year.
    static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        guard seconds.isFinite else { return 86_400 * 365 * 1_000_000_000 }
        return UInt64(max(0.001, min(seconds, 86_400 * 365)) * 1e9)
    }

    /// `seconds` (finite: the exchange drops a deadline that is not) as a NIO time amount, at least one millisecond
    /// and at most a year.
    static func amount(_ seconds: TimeInterval) -> TimeAmount {
        .milliseconds(Int64(max(0.001, min(seconds, 86_400 * 365)) * 1000))
    }
}
