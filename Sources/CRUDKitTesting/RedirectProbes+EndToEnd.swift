import CRUDKit
import Foundation

extension RedirectProbes {
    /// The redirects an `API` follows over the wire: cookies per hop, a 307's body, credentials, a download, a
    /// `DownloadTask` and a paused `RequestHandle` across a redirect.
    var endToEndChecks: [Check] {
        [
            cookieOnA302, a307ResendsThePost, credentialsStayHome, downloadsFollowARedirect,
            aPausedGetResumesAcrossARedirect,
        ]
    }

    static let length = 2 << 20

    /// `/login` sets a cookie on its 302 to `/home`; `/post` answers 307 to `/landed`; `/away` 302 to `other`;
    /// `/file` and `/big` 302 to the bodies at `/data` (small) and `/stalling` (stops halfway until resumed).
    static func site(other: URL? = nil) throws -> LoopbackServer {
        try start { request in
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
        }
    }

    var cookieOnA302: Check {
        Check(name: "a cookie set on a 302 goes to the next hop and stays in the jar") {
            let server = try Self.site()
            defer { server.stop() }
            let api = api(server)
            let home = try await api.get("login")
            try Self.expect(Self.text(home) == "GET 0 session=abc", "the next hop got \(Self.text(home))")
            try Self.expect(home.url?.path == "/home", "the response's URL is \(home.url?.path ?? "none")")
            let me = try await api.get("me")
            try Self.expect(Self.text(me) == "GET 0 session=abc", "the jar did not keep the cookie: \(Self.text(me))")
            let paths = server.requests.map(\.path)
            try Self.expect(paths == ["/login", "/home", "/me"], "the server saw \(paths)")
        }
    }

    var a307ResendsThePost: Check {
        Check(name: "a 307 resends the POST and its body") {
            let server = try Self.site()
            defer { server.stop() }
            let response = try await api(server).post("post", body: .data(Data("{\"a\":1}".utf8)))
            try Self.expect(Self.text(response) == "POST 7 none", "the last hop got \(Self.text(response))")
            let methods = server.requests.map(\.method)
            try Self.expect(methods == ["POST", "POST"], "the server saw \(methods)")
        }
    }

    var credentialsStayHome: Check {
        Check(name: "credentials are dropped on the way to another server") {
            let other = try Self.start { _ in .response(HTTPResponse(status: 200)) }
            defer { other.stop() }
            let server = try Self.site(other: other.baseURL)
            defer { server.stop() }
            let api = api(server).with { $0.headers = ["Authorization": "Bearer s3cret", "X-API-Key": "s3cret"] }
            _ = try await api.get("away")
            try Self.expect(
                server.requests.first?.headers["Authorization"] == "Bearer s3cret", "the first hop lost its credential")
            guard let landed = other.requests.first else {
                throw TransportContract.Failure("the other server saw nothing")
            }
            try Self.expect(landed.path == "/landing", "the other server saw \(landed.path)")
            try Self.expect(
                !String(decoding: landed.raw, as: UTF8.self).contains("s3cret"), "a credential went to the other server"
            )
        }
    }

    var downloadsFollowARedirect: Check {
        Check(name: "a download and a DownloadTask follow a redirect, within maximumRedirects") {
            let server = try Self.site()
            defer { server.stop() }
            try await Self.withDirectory { directory in
                let expected = LoopbackDownload.bytes(0..<100_000)
                let destination = directory.appendingPathComponent("api.bin")
                let response = try await api(server).download("file", to: destination)
                try Self.expect(response.status == 200, "the download answered \(response.status)")
                try Self.expect(
                    FileManager.default.contents(atPath: destination.path) == expected, "the download's bytes differ")

                let task = transport().downloadTask(
                    HTTPRequest(url: server.baseURL.appendingPathComponent("file")),
                    to: directory.appendingPathComponent("t.bin"))
                let file = try await task.finished
                try Self.expect(
                    FileManager.default.contents(atPath: file.path) == expected, "the DownloadTask's bytes differ")

                let limited = transport().downloadTask(
                    HTTPRequest(url: server.baseURL.appendingPathComponent("file")), maximumRedirects: 0)
                try await Self.expectError("tooManyRedirects(limit: 0)", { try await limited.finished }) {
                    if case .tooManyRedirects(limit: 0) = $0 { true } else { false }
                }
            }
        }
    }

    var aPausedGetResumesAcrossARedirect: Check {
        Check(name: "a paused GET resumes across a redirect") {
            let server = try Self.site()
            defer { server.stop() }
            let (reached, signal) = AsyncStream.makeStream(of: Void.self)
            var request = Request(.get, "big", decoder: .response)
            // Past the redirect's own 5 bytes: into the body of /stalling.
            request.observer = TransferObserver(download: { if $0.completedBytes > 1000 { signal.yield() } })
            // Room for the 2 MiB body the handle reads back into memory.
            let handle = api(server, TransportContract.Settings(maximumResponseSize: 8 << 20)).handle(for: request)
            for await _ in reached { break }
            try Self.expect(handle.pause() == .paused, "the handle did not pause")
            handle.resume()
            let body = try await handle.value.body
            let requests = server.requests
            let seen = requests.map { "\($0.path) \($0.headers["Range"] ?? "-")" }
            try Self.expect(
                requests.map(\.path) == ["/big", "/stalling", "/big", "/stalling"], "the server saw \(seen)")
            try Self.expect(body == LoopbackDownload.bytes(0..<Self.length), "the resumed body differs")
            let range = requests.last?.headers["Range"] ?? "none"
            try Self.expect(range.hasPrefix("bytes=") && range != "bytes=0-", "resumed with \(range)")
            try Self.expect(requests.last?.headers["If-Range"] != nil, "resumed without If-Range")
        }
    }
}
