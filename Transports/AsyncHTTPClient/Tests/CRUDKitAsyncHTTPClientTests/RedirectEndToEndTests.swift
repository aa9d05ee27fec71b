import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Testing

/// Redirects over the wire through an `API` on `AsyncHTTPClientTransport`, which sends one exchange per hop: the end
/// of the chain follows them, keeps each hop's cookies, resends a 307's body, drops credentials on the way to another
/// server, and a download, a `DownloadTask` and a paused-and-resumed `RequestHandle` cross a redirect. The root
/// suite runs the same probes on `URLSessionTransport` (same results).
@Suite(.timeLimit(.minutes(1))) struct RedirectEndToEndTests {
    static let length = 2 << 20

    /// `/login` sets a cookie on its 302 to `/home`; `/post` answers 307 to `/landed`; `/away` 302 to `other`;
    /// `/file` and `/big` 302 to the bodies at `/data` (small) and `/stalling` (stops halfway until resumed).
    static func server(other: URL? = nil) throws -> LoopbackServer {
        let server = LoopbackServer(synchronousHandler: { request in
            func moved(_ status: Int, _ location: String, _ extra: HTTPHeaders = [:]) -> LoopbackReply {
                var headers = extra
                headers["Location"] = location
                return .response(HTTPResponse(status: status, headers: headers, body: Data("moved".utf8)))
            }
            switch request.path {
            case "/login": return moved(302, "/home", ["Set-Cookie": "session=abc; Path=/"])
            case "/post": return moved(307, "/landed")
            case "/away": return moved(302, other?.appendingPathComponent("landing").absoluteString ?? "/")
            case "/file": return moved(302, "/data")
            case "/big": return moved(302, "/stalling")
            case "/data": return .download(LoopbackDownload(length: 100_000))
            case "/stalling": return .download(LoopbackDownload(length: length, stallAfter: length / 2))
            default:
                let cookie = request.headers["Cookie"] ?? "none"
                return .response(
                    HTTPResponse(status: 200, body: Data("\(request.method) \(request.body.count) \(cookie)".utf8)))
            }
        })
        try server.start()
        return server
    }

    let transport = AsyncHTTPClientTransport()

    func api(_ server: LoopbackServer) -> API {
        API(baseURL: server.baseURL, transport: transport)
    }

    static func isTooManyRedirects(_ error: any Error, _ limit: Int) -> Bool {
        if case .tooManyRedirects(let seen)? = error as? CRUDError { seen == limit } else { false }
    }

    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func aCookieSetOnA302GoesToTheNextHopAndStaysInTheJar() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let api = api(server)
        let home = try await api.get("login")
        #expect(Self.text(home) == "GET 0 session=abc")
        #expect(home.url?.path == "/home")
        #expect(Self.text(try await api.get("me")) == "GET 0 session=abc")
        #expect(server.requests.map(\.path) == ["/login", "/home", "/me"])
    }

    @Test func a307ResendsThePostAndItsBody() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let response = try await api(server).post("post", body: .data(Data("{\"a\":1}".utf8)))
        #expect(Self.text(response) == "POST 7 none")
        #expect(server.requests.map(\.method) == ["POST", "POST"])
    }

    @Test func credentialsAreDroppedOnTheWayToAnotherServer() async throws {
        let other = LoopbackServer(synchronousHandler: { _ in .response(HTTPResponse(status: 200)) })
        try other.start()
        defer { other.stop() }
        let server = try Self.server(other: other.baseURL)
        defer { server.stop() }
        let api = api(server).with { $0.headers = ["Authorization": "Bearer s3cret", "X-API-Key": "s3cret"] }
        _ = try await api.get("away")
        #expect(server.requests.first?.headers["Authorization"] == "Bearer s3cret")
        let landed = try #require(other.requests.first)
        #expect(landed.path == "/landing")
        #expect(!String(decoding: landed.raw, as: UTF8.self).contains("s3cret"))
    }

    @Test func aDownloadAndADownloadTaskFollowARedirect() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("crudkit-redirect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let expected = LoopbackDownload.bytes(0..<100_000)

        let destination = directory.appendingPathComponent("api.bin")
        let response = try await api(server).download("file", to: destination)
        #expect(response.status == 200)
        #expect(FileManager.default.contents(atPath: destination.path) == expected)

        let task = transport.downloadTask(
            HTTPRequest(url: server.baseURL.appendingPathComponent("file")),
            to: directory.appendingPathComponent("t.bin"))
        #expect(FileManager.default.contents(atPath: try await task.finished.path) == expected)

        let limited = transport.downloadTask(
            HTTPRequest(url: server.baseURL.appendingPathComponent("file")), maximumRedirects: 0)
        await #expect {
            try await limited.finished
        } throws: { error in
            Self.isTooManyRedirects(error, 0)
        }
    }

    @Test func aPausedGetResumesAcrossARedirect() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let (reached, signal) = AsyncStream.makeStream(of: Void.self)
        var request = Request(.get, "big", decoder: .response)
        // Past the redirect's own 5 bytes: into the body of /stalling.
        request.observer = TransferObserver(download: { if $0.completedBytes > 1000 { signal.yield() } })
        let handle = api(server).handle(for: request)
        for await _ in reached { break }
        #expect(handle.pause() == .paused)
        handle.resume()
        let body: Result<Data, any Error>
        do { body = .success(try await handle.value.body) } catch { body = .failure(error) }
        let requests = server.requests
        #expect(
            requests.map(\.path) == ["/big", "/stalling", "/big", "/stalling"],
            "\(requests.map { "\($0.path) \($0.headers["Range"] ?? "-")" })")
        #expect(try body.get() == LoopbackDownload.bytes(0..<Self.length))
        let range = requests.last?.headers["Range"] ?? "none"
        #expect(range.hasPrefix("bytes=") && range != "bytes=0-", "resumed with \(range)")
        #expect(requests.last?.headers["If-Range"] != nil)
    }
}
