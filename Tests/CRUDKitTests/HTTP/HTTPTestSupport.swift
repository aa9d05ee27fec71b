import CRUDKit
import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

/// The resident set size of this process in bytes, from `/proc/self/statm` (0 where there is none).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * 4096
}

/// A new empty directory under the temporary directory, for one test.
func makeScratchDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("crudkit-http-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// 64-bit FNV-1a, written here independently of the server's so the two check each other.
struct FNV1a {
    private(set) var value: UInt64 = 14_695_981_039_346_656_037

    mutating func add(_ data: Data) {
        var hash = value
        data.withUnsafeBytes { buffer in
            for byte in buffer { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        }
        value = hash
    }

    /// The checksum of a file, read 1 MB at a time.
    static func ofFile(_ url: URL) throws -> (checksum: UInt64, length: Int) {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var fnv = FNV1a()
        var length = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            fnv.add(chunk)
            length += chunk.count
        }
        return (fnv.value, length)
    }
}

/// Whether `error` is the ``CRUDError`` case `matches` accepts.
func isCRUDError(_ error: any Error, _ matches: (CRUDError) -> Bool) -> Bool {
    guard let error = error as? CRUDError else { return false }
    return matches(error)
}

extension CRUDError {
    var isTransport: Bool {
        if case .transport = self { return true }
        return false
    }

    var timeout: CRUDError.Timeout? {
        if case .timedOut(let timeout) = self { return timeout }
        return nil
    }
}

/// A server that answers every request with 200 and the request's body, recording everything.
func makeEchoServer() throws -> LoopbackServer {
    let server = LoopbackServer(synchronousHandler: { request in
        .response(HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: request.body))
    })
    try server.start()
    return server
}

/// Sends requests through an `API` over a transport, the path a user takes: the API's cookie jar and deadline
/// defaults apply at the end of its chain, and with no middleware any status comes back as a response.
struct ThroughAPI: Sendable {
    let api: API

    init(_ transport: any Transport = URLSessionTransport(), cookieJar: CookieJar = CookieJar()) {
        api = API(
            configuration: APIConfiguration(baseURL: nil, transport: transport, middleware: [], cookieJar: cookieJar))
    }

    /// The API's jar.
    var cookieJar: CookieJar { api.configuration.cookieJar }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await api.send(request)
    }
}

extension Transport {
    /// Sends `request` one exchange per hop, its redirects followed as the end of an `API`'s chain follows them (at
    /// most `limit`, one deadline across hops): a transport alone returns a 3xx as it is.
    func following(_ request: HTTPRequest, limit: Int = 5) async throws -> HTTPResponse {
        try await RedirectFollower(limit: limit).follow(request) { try await send($0) }
    }

    /// Downloads `request` to `destination` like ``following(_:limit:)``.
    func downloadFollowing(
        _ request: HTTPRequest, to destination: URL, limit: Int = 5
    ) async throws -> HTTPResponse {
        try await RedirectFollower(limit: limit).follow(request) {
            try await download($0, to: destination, observer: .none)
        }
    }
}
