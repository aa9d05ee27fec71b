import CRUDKit
import Foundation

// The contract's checks of redirects on the wire, challenges, deadlines, 1xx answers, a close inside the
// headers, cookies, files, progress and Future cancellation.

extension TransportContract {
    /// A page every check of this file answers with: the method the server saw and the body's length.
    static func echo(_ request: LoopbackRequest) -> LoopbackReply {
        .response(HTTPResponse(status: 200, body: Data("\(request.method) \(request.body.count)".utf8)))
    }

    /// The body of `response` as text.
    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    /// A redirect (301, 302, 303, 307, 308) comes back as it is, with its `Location` and body, and is never followed:
    /// for a `GET`, for a `POST` with a body, and for a download to a file (which writes no file for it). Following
    /// redirects is the `API`'s, at the end of its middleware chain, by the same rules for every transport.
    var redirectsComeBackAsTheyAre: Check {
        Check(name: "a 3xx comes back as it is, never followed") {
            try await Self.withServer(contract: self) { request in
                guard let status = Int(request.path.split(separator: "/").first ?? "") else {
                    return Self.echo(request)
                }
                return .response(
                    HTTPResponse(
                        status: status, headers: ["Location": "/done", "X-Hop": "\(status)"],
                        body: Data("moved \(request.method) \(request.body.count)".utf8)))
            } body: { server, transport in
                let directory = FileManager.default.temporaryDirectory
                    .appendingPathComponent("crudkit-contract-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                let body = Data("{\"name\":\"Ada\"}".utf8)
                for status in [301, 302, 303, 307, 308] {
                    let url = server.baseURL.appendingPathComponent("\(status)")
                    let destination = directory.appendingPathComponent("\(status).bin")
                    let before = server.requests.count
                    let answers = [
                        ("GET", try await transport.send(HTTPRequest(url: url)), "moved GET 0"),
                        (
                            "POST", try await transport.send(HTTPRequest(method: .post, url: url, body: .data(body))),
                            "moved POST \(body.count)"
                        ),
                        (
                            "download",
                            try await transport.download(HTTPRequest(url: url), to: destination, observer: .none),
                            "moved GET 0"
                        ),
                    ]
                    for (kind, response, text) in answers {
                        try Self.expect(
                            response.status == status && response.headers["Location"] == "/done"
                                && response.headers["X-Hop"] == "\(status)" && Self.text(response) == text,
                            "a \(kind) answered \(status) came back as \(response.status) "
                                + "Location \(response.headers["Location"] ?? "none"): \(Self.text(response))")
                    }
                    try Self.expect(
                        server.requests.count == before + 3,
                        "\(server.requests.count - before) requests reached the server for 3 answered \(status): "
                            + "a redirect was followed")
                    try Self.expect(
                        !FileManager.default.fileExists(atPath: destination.path),
                        "a download answered \(status) created its file")
                }
            }
        }
    }

    /// A 401 with a Basic, Digest or Bearer challenge comes back at once as a response.
    var authenticationChallenges: Check {
        Check(name: "401 with Basic, Digest and Bearer challenges returned at once") {
            let challenges = [
                "Basic realm=\"api\"", "Digest realm=\"api\", nonce=\"abc\", qop=\"auth\"", "Bearer realm=\"api\"",
            ]
            try await Self.withServer(Settings(idleTimeout: 30), contract: self) { request in
                let index = Int(request.path.dropFirst()) ?? 0
                return .response(
                    HTTPResponse(
                        status: 401, headers: ["WWW-Authenticate": challenges[index % challenges.count]],
                        body: Data("{\"detail\":\"no\"}".utf8)))
            } body: { server, transport in
                for index in challenges.indices {
                    let clock = ContinuousClock()
                    let started = clock.now
                    let response = try await transport.send(
                        HTTPRequest(
                            url: server.baseURL.appendingPathComponent("\(index)"),
                            headers: ["Authorization": "Basic d3Jvbmc="]))
                    let elapsed = clock.now - started
                    try Self.expect(response.status == 401, "\(challenges[index]): status \(response.status)")
                    try Self.expect(elapsed < .seconds(25), "\(challenges[index]): the 401 took \(elapsed)")
                }
            }
        }
    }

    /// A body that keeps trickling ends at the request's deadline, though bytes keep arriving.
    var deadline: Check {
        Check(name: "deadline ends a trickling body") {
            let chunks = Array(repeating: Data("x".utf8), count: 600)  // 60 s of bytes, one every 0.1 s
            try await Self.withServer(Settings(idleTimeout: 5), contract: self) { _ in
                .stream(LoopbackStream(chunks: chunks, delay: 0.1))
            } body: { server, transport in
                let clock = ContinuousClock()
                let started = clock.now
                try await Self.expectError("timedOut(.deadline(1))") {
                    try await transport.send(
                        HTTPRequest(url: server.baseURL.appendingPathComponent("trickle"), deadline: 1))
                } matches: {
                    if case .timedOut(.deadline) = $0 { true } else { false }
                }
                let elapsed = clock.now - started
                // Generous: an instrumented run on a busy machine may be scheduled late; a transport that ignores the
                // deadline gets the whole 60 s body (a 200) and fails above.
                try Self.expect(elapsed < .seconds(40), "the deadline of 1 s ended the request after \(elapsed)")
            }
        }
    }

    /// Informational (1xx) answers before the final one are skipped.
    var informationalAnswers: Check {
        Check(name: "1xx before the final answer") {
            let raw =
                "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nfinal"
            try await Self.withServer(contract: self) { _ in
                .fault(.raw(Data(raw.utf8)))
            } body: { server, transport in
                let response = try await transport.send(
                    HTTPRequest(url: server.baseURL.appendingPathComponent("hints")))
                try Self.expect(
                    response.status == 200 && Self.text(response) == "final",
                    "after a 103 the transport returned \(response.status) \(Self.text(response))")
            }
        }
    }

    /// A close inside the headers, before any Content-Length, is a transport error (`connectionLost`), not a crash.
    var closeInsideHeaders: Check {
        Check(
            name: "fault: close inside the headers",
            knownLimitations: [
                "URLSessionTransport":
                    "FoundationNetworking on Linux aborts the process (\"Transfer completed, but there's no response\"); pinned in a child process by the suite"
            ],
            abortsProcess: ["URLSessionTransport"]
        ) {
            let raw = "HTTP/1.1 200 OK\r\nContent-Type: application/js"
            try await Self.withServer(contract: self) { _ in
                .fault(.raw(Data(raw.utf8)))
            } body: { server, transport in
                try await Self.expectError("transport with reason connection lost") {
                    try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("f")))
                } matches: {
                    if case .transport(let failure) = $0 { failure.reason == .connectionLost } else { false }
                }
            }
        }
    }

    /// Through an `API` over the transport, cookies a server sets come back to it under their path, and `Secure`
    /// ones never over plain HTTP: the transport hands `Set-Cookie` back in the response and sends the `Cookie`
    /// header it is given (the API keeps the jar, see `APIConfiguration.cookieJar`).
    var cookies: Check {
        Check(name: "cookies through an API: sent back by path, Secure only over HTTPS") {
            try await Self.withServer(contract: self) { request in
                if request.path == "/login" {
                    var headers = HTTPHeaders()
                    headers.add(name: "Set-Cookie", value: "session=abc; Path=/")
                    headers.add(name: "Set-Cookie", value: "admin=1; Path=/admin")
                    headers.add(name: "Set-Cookie", value: "vault=v; Path=/; Secure")
                    return .response(HTTPResponse(status: 204, headers: headers))
                }
                return .response(HTTPResponse(status: 200, body: Data((request.headers["Cookie"] ?? "").utf8)))
            } body: { server, transport in
                let api = API(baseURL: server.baseURL, transport: transport, middleware: [])
                let login = try await api.get("login")
                try Self.expect(login.headers["Set-Cookie"] != nil, "the login answer came back without Set-Cookie")
                let plain = Self.text(try await api.get("me"))
                try Self.expect(plain == "session=abc", "GET /me carried Cookie: \(plain)")
                let admin = Self.text(try await api.get("admin/x"))
                try Self.expect(
                    admin.contains("session=abc") && admin.contains("admin=1") && !admin.contains("vault"),
                    "GET /admin/x carried Cookie: \(admin)")
                let bare = Self.text(
                    try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("me"))))
                try Self.expect(bare.isEmpty, "the transport alone added Cookie: \(bare) (cookies are the API's)")
            }
        }
    }

    /// A file body is streamed to the server byte-exact, and a download to a file is written byte-exact.
    var files: Check {
        Check(name: "upload from a file, download to a file") {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("crudkit-contract-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let payload = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            let source = directory.appendingPathComponent("upload.bin")
            try payload.write(to: source)
            try await Self.withServer(contract: self) { request in
                request.method == "PUT"
                    ? .response(HTTPResponse(status: request.body == payload ? 204 : 422))
                    : .response(HTTPResponse(status: 200, body: payload))
            } body: { server, transport in
                let uploaded = try await transport.send(
                    HTTPRequest(method: .put, url: server.baseURL.appendingPathComponent("blob"), body: .file(source)))
                try Self.expect(uploaded.status == 204, "the server received another body (status \(uploaded.status))")
                let destination = directory.appendingPathComponent("download.bin")
                let downloaded = try await transport.download(
                    HTTPRequest(url: server.baseURL.appendingPathComponent("blob")), to: destination, observer: .none)
                try Self.expect(downloaded.status == 200, "download status \(downloaded.status)")
                try Self.expect(
                    (try? Data(contentsOf: destination)) == payload, "the downloaded file differs from the body")
            }
        }
    }

    /// Progress both ways: monotonic, the last report equal to the total, and not one report per read.
    var progress: Check {
        Check(
            name: "progress both ways"
        ) {
            let size = 400_000
            try await Self.withServer(contract: self) { request in
                .response(HTTPResponse(status: 200, body: Data(count: request.body.count)))
            } body: { server, transport in
                let uploads = Locked<[Int64]>([])
                let downloads = Locked<[Int64]>([])
                let observer = TransferObserver(
                    upload: { progress in uploads.withLock { $0.append(progress.completedBytes) } },
                    download: { progress in downloads.withLock { $0.append(progress.completedBytes) } })
                _ = try await transport.send(
                    HTTPRequest(
                        method: .post, url: server.baseURL.appendingPathComponent("p"), body: .data(Data(count: size))),
                    observer: observer)
                for (direction, reports) in [
                    ("upload", uploads.withLock { $0 }), ("download", downloads.withLock { $0 }),
                ] {
                    try Self.expect(
                        reports.last == Int64(size),
                        "\(direction): last report \(reports.last.map(String.init) ?? "none"), expected \(size)")
                    try Self.expect(
                        zip(reports, reports.dropFirst()).allSatisfy { $0 <= $1 },
                        "\(direction): reports went backwards")
                    try Self.expect(reports.count <= 110, "\(direction): \(reports.count) reports for \(size) bytes")
                }
            }
        }
    }

    /// Cancelling a `Future` made from the transport's call ends it with cancelled, well before any timeout.
    var futureCancellation: Check {
        Check(name: "cancellation through Future") {
            try await Self.withServer(contract: self) { _ in
                .fault(.neverAnswer)
            } body: { server, transport in
                let request = HTTPRequest(url: server.baseURL.appendingPathComponent("wait"))
                let future = Future { try await transport.send(request) }
                let clock = ContinuousClock()
                let limit = clock.now.advanced(by: .seconds(10))
                while server.connectionsAccepted == 0 && clock.now < limit { await Task.yield() }
                future.cancel()
                try await Self.expectError("cancelled") {
                    try await future.value
                } matches: {
                    $0.isCancelled
                }
            }
        }
    }
}
