import CRUDKit
import Foundation

/// Redirects end to end through an ``CRUDKit/API`` over a real ``CRUDKit/ResumableTransport`` and ``LoopbackServer``:
/// the hostile-server probes both shipped transports run, where ``TransportContract`` (the wire alone) stops.
///
/// Each transport sends one exchange and returns a 3xx as it is; the `API` (and a ``CRUDKit/DownloadTask``) follows
/// it. The probes hold that pair to the same results on every transport: cookies per hop, bodies resent (307, 308,
/// a file, a multipart form) or dropped (303), credentials never sent to another origin, the body of a redirect that
/// is followed dropped whatever its size (too big, endless, a gzip bomb) and kept within the size limit when it is
/// not, one deadline and the idle timeout across hops, cancellation on hop 2, a download, a `DownloadTask` and a
/// paused `RequestHandle` across a redirect, and the odd `Location`s. Run each as a test, as the contract's:
///
/// ```swift
/// let probes = RedirectProbes { settings in
///     URLSessionTransport(configuration: .init(
///         idleTimeout: settings.idleTimeout, maximumResponseSize: settings.maximumResponseSize))
/// }
///
/// @Test(arguments: probes.checks)
/// func redirects(check: TransportContract.Check) async throws {
///     try await check.run()
/// }
/// ```
public struct RedirectProbes: Sendable {
    let makeTransport: @Sendable (TransportContract.Settings) -> any ResumableTransport

    /// Creates the probes for the transports `makeTransport` returns.
    ///
    /// - Parameter makeTransport: Makes a fresh transport applying the given settings; called once or more per probe.
    public init(makeTransport: @escaping @Sendable (TransportContract.Settings) -> any ResumableTransport) {
        self.makeTransport = makeTransport
    }

    /// Every probe, in a stable order, as checks to run one by one (see ``TransportContract/Check``).
    public var checks: [TransportContract.Check] { endToEndChecks + hopChecks + bodyChecks }
}

extension RedirectProbes {
    typealias Check = TransportContract.Check

    /// A transport with the default settings (or `settings`).
    func transport(_ settings: TransportContract.Settings = .init()) -> any ResumableTransport {
        makeTransport(settings)
    }

    /// An `API` on `server` over a fresh transport.
    func api(_ server: LoopbackServer, _ settings: TransportContract.Settings = .init()) -> API {
        API(baseURL: server.baseURL, transport: transport(settings))
    }

    /// Whether `transport` is `URLSessionTransport` over FoundationNetworking (Linux), which holds a 301–308 body
    /// itself until it ends and refuses one without `Location`, before the transport sees the head.
    static func foundationHoldsRedirects(_ transport: any Transport) -> Bool {
        #if canImport(FoundationNetworking)
        transport is URLSessionTransport
        #else
        false
        #endif
    }

    static func moved(_ status: Int, _ location: String, body: Data = Data("moved".utf8)) -> LoopbackReply {
        .response(HTTPResponse(status: status, headers: ["Location": location], body: body))
    }

    /// Echoes what arrived: `METHOD target length`.
    static func echo(_ request: LoopbackRequest) -> LoopbackReply {
        .response(
            HTTPResponse(status: 200, body: Data("\(request.method) \(request.target) \(request.bodyLength)".utf8)))
    }

    static func start(_ handler: @escaping @Sendable (LoopbackRequest) -> LoopbackReply) throws -> LoopbackServer {
        let server = LoopbackServer(synchronousHandler: handler)
        try server.start()
        return server
    }

    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    static func url(_ server: LoopbackServer, _ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(server.port)\(path)")!
    }

    static func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        try TransportContract.expect(condition, message())
    }

    /// Runs `operation`, which must throw a ``CRUDKit/CRUDError`` for which `matches` is true.
    static func expectError(
        _ expected: String, _ operation: () async throws -> Any, matches: (CRUDError) -> Bool
    ) async throws {
        try await TransportContract.expectError(
            expected,
            {
                let value = try await operation()
                return value as? HTTPResponse ?? HTTPResponse(status: 0, body: Data("\(value)".utf8))
            },
            matches: matches)
    }

    /// A temporary directory, removed after `body`.
    static func withDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("crudkit-redirect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }
}
