import AsyncHTTPClient
import CRUDKit
import Foundation
import NIOCore
import NIOHTTP1

/// A ``CRUDKit/Transport`` over AsyncHTTPClient, for Linux servers (Vapor, Hummingbird, service-to-service calls).
///
/// It follows redirects by CRUDKit's ``CRUDKit/RedirectPolicy`` (AsyncHTTPClient's own redirect following is off),
/// keeps cookies in a ``CRUDKit/CookieJar``, streams response bodies with back-pressure and stops reading as soon
/// as a body passes ``Configuration/maximumResponseSize``, and maps every failure to a ``CRUDKit/CRUDError``.
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
    /// The transport's settings; the same as ``CRUDKit/URLSessionTransport/Configuration``.
    public typealias Configuration = URLSessionTransport.Configuration

    /// The settings in force.
    public let configuration: Configuration
    /// The client requests go through.
    public let client: HTTPClient
    let ownsClient: Bool
    let cookies = CookieJar()

    /// Creates a transport that owns a new `HTTPClient` built from `configuration`; call ``shutdown()`` when done.
    ///
    /// - Parameter configuration: Connections per host, timeouts, size and redirect limits.
    public init(configuration: Configuration = Configuration()) {
        var settings = HTTPClient.Configuration(redirectConfiguration: .disallow)
        settings.timeout = .init(connect: .seconds(10), read: Self.amount(configuration.idleTimeout))
        settings.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, configuration.maximumConnectionsPerHost))
        settings.decompression = .disabled
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
        self.configuration = configuration
        self.ownsClient = true
    }

    /// Creates a transport over a client you own; the transport never shuts it down.
    ///
    /// The client's own redirect following should be off: redirects are followed here, by CRUDKit's policy.
    /// - Parameters:
    ///   - client: The client to send through, such as `HTTPClient.shared`.
    ///   - configuration: Size and redirect limits and the deadline; the idle timeout is the client's.
    public init(client: HTTPClient, configuration: Configuration = Configuration()) {
        self.client = client
        self.configuration = configuration
        self.ownsClient = false
    }

    deinit {
        if ownsClient { client.shutdown { _ in } }
    }

    /// Shuts an owned client down, waiting for its connections to close; does nothing for a shared client.
    ///
    /// - Throws: The client's shutdown error.
    public func shutdown() async throws {
        if ownsClient { try await client.shutdown() }
    }

    /// Sends `request`, following redirects by CRUDKit's policy, and returns the final response.
    ///
    /// - Parameter request: The request; its headers are checked first (see ``CRUDKit/HTTPRequest/validate()``).
    /// - Returns: The response, whatever its status.
    /// - Throws: ``CRUDKit/CRUDError``.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try request.validate()
        let limit = request.deadline ?? configuration.deadline
        let started = NIODeadline.now()
        let deadline = limit.map { started + Self.amount($0) } ?? .distantFuture
        var current = request
        var redirects = 0
        while true {
            let response = try await exchange(current, deadline: deadline, limit: limit)
            guard let next = RedirectPolicy.nextRequest(after: response, to: current) else { return response }
            redirects += 1
            if redirects > configuration.maximumRedirects {
                throw CRUDError.tooManyRedirects(limit: configuration.maximumRedirects)
            }
            current = next
        }
    }

    /// Sends one request without following redirects.
    func exchange(_ request: HTTPRequest, deadline: NIODeadline, limit: TimeInterval?) async throws -> HTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headers { outgoing.headers.add(name: field.name, value: field.value) }
        if !outgoing.headers.contains(name: "User-Agent") {
            outgoing.headers.add(name: "User-Agent", value: configuration.userAgent)
        }
        if !outgoing.headers.contains(name: "Cookie"), let cookie = cookies.cookieHeader(for: request.url) {
            outgoing.headers.add(name: "Cookie", value: cookie)
        }
        outgoing.body = try Self.body(request.body)
        do {
            try Task.checkCancellation()
            let answer = try await client.execute(outgoing, deadline: deadline)
            let setCookies = answer.headers["Set-Cookie"]
            if !setCookies.isEmpty { cookies.store(setCookieHeaders: setCookies, for: request.url) }
            let body = try await Self.collect(answer, maximum: configuration.maximumResponseSize)
            var headers = CRUDKit.HTTPHeaders()
            for (name, value) in answer.headers { headers.add(name: name, value: value) }
            return HTTPResponse(status: Int(answer.status.code), headers: headers, body: body, url: request.url)
        } catch {
            throw Self.crudError(for: error, idleTimeout: request.timeout ?? configuration.idleTimeout, deadline: limit)
        }
    }

    /// Reads the body piece by piece, failing as soon as it passes `maximum` (never holding more than one piece
    /// beyond it).
    static func collect(_ response: HTTPClientResponse, maximum: Int) async throws -> Data {
        if let declared = response.headers.first(name: "Content-Length").flatMap(Int.init), declared > maximum {
            throw CRUDError.responseTooLarge(limit: maximum)
        }
        var data = Data()
        for try await piece in response.body {
            if data.count + piece.readableBytes > maximum { throw CRUDError.responseTooLarge(limit: maximum) }
            data.append(contentsOf: piece.readableBytesView)
        }
        return data
    }

    /// The request body for AsyncHTTPClient: bytes in memory, or a file streamed in pieces.
    static func body(_ body: HTTPBody) throws -> HTTPClientRequest.Body? {
        switch body {
        case .none: return nil
        case .data(let data): return .bytes(ByteBuffer(bytes: data))
        case .file(let url):
            let size: Int64
            do {
                let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
                size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            } catch {
                throw CRUDError.invalidRequest(reason: "the body file \(url.path) cannot be read")
            }
            return .stream(FileChunks(url: url), length: .known(size))
        }
    }

    /// `seconds` as a NIO time amount, at least one millisecond.
    static func amount(_ seconds: TimeInterval) -> TimeAmount {
        .milliseconds(Int64(max(0.001, min(seconds, 86_400 * 365)) * 1000))
    }
}

/// A file's bytes in 64 KB pieces, read as they are asked for.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let url: URL

    struct AsyncIterator: AsyncIteratorProtocol {
        let handle: FileHandle?
        let url: URL
        mutating func next() async throws -> ByteBuffer? {
            guard let handle else { throw CRUDError.invalidRequest(reason: "the body file \(url.path) cannot be read") }
            guard let data = try handle.read(upToCount: 64 << 10), !data.isEmpty else {
                try? handle.close()
                return nil
            }
            return ByteBuffer(bytes: data)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(handle: try? FileHandle(forReadingFrom: url), url: url)
    }
}
