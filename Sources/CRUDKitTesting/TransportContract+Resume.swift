import CRUDKit
import Foundation

// The checks of a resumed or revalidated body against a hostile server (issue 28): through `RequestHandle` and
// `DownloadTask` alike, a transport passes only if the body is the server's or an error, never spliced from two
// versions, never relabelled, never a crash.

extension TransportContract {
    /// How a check reads: through a request handle, or a download task into a file.
    enum ResumeRoute: String, Sendable, CaseIterable {
        case handle = "request handle"
        case download = "download task"
    }

    /// What a paused and resumed read ended with.
    struct ResumeResult: Sendable {
        var status: Int?
        var headers: HTTPHeaders
        var body: Data
    }

    /// The resume checks, each through both routes where it applies.
    var resumeChecks: [Check] {
        ResumeRoute.allCases.flatMap { route in
            [
                resumeUnderAnotherValidator(route), resumeUnderAnotherValidator(route, whole: true),
                resumeKeepsTheCallersRange(route), resumeOfAnotherRangeFails(route),
            ]
        } + [
            partialAnswersStayPartial, weakValidatorsAreNeverResumed,
            resumedHugeContentLength(.handle), resumedHugeContentLength(.download), hugeContentLength,
            cacheRefusesAnotherValidator,
        ]
    }

    /// Item 1: paused at byte `n`, the resume is answered `206` under another `ETag` (the server ignored `If-Range`):
    /// its bytes are not appended; the read starts over and ends with the new version whole. With `whole`, that
    /// `206` names another range than the one asked for (`bytes 0-99/100`, the new version whole): another validator
    /// still means starting over, not a protocol violation.
    func resumeUnderAnotherValidator(_ route: ResumeRoute, whole: Bool = false) -> Check {
        let variant = whole ? " for another range" : ""
        return Check(
            name: "\(route.rawValue): a resume answered under another ETag\(variant) starts over, never splices"
        ) {
            let count = Locked(0)
            try await Self.withServer(Self.handleSettings, contract: self) { request in
                switch count.withLock({ count -> Int in
                    count += 1
                    return count
                }) {
                case 1: return Self.stalled(status: 200, etag: "\"v1\"", body: Data(repeating: 0x41, count: 100))
                case 2:
                    let start = whole ? 0 : Self.rangeStart(request) ?? 0
                    return .response(
                        HTTPResponse(
                            status: 206,
                            headers: ["ETag": "\"v2\"", "Content-Range": "bytes \(start)-99/100"],
                            body: Data(repeating: 0x62, count: 100 - start)))
                default:
                    return .response(
                        HTTPResponse(status: 200, headers: ["ETag": "\"v2\""], body: Data(repeating: 0x42, count: 100)))
                }
            } body: { server, transport in
                let result = try await Self.pausedRead(route, server, transport)
                try Self.expect(
                    result.body == Data(repeating: 0x42, count: 100),
                    "the body is \(Self.summary(result.body)), not version 2 whole (B×100)")
                let requests = server.requests
                try Self.expect(requests.count == 3, "\(requests.count) requests, expected 3")
                try Self.expect(requests[1].headers["If-Range"] == "\"v1\"", "the resume did not send If-Range \"v1\"")
                try Self.expect(requests[2].headers["Range"] == nil, "the restart asked for a range")
                if route == .handle {
                    try Self.expect(result.status == 200, "status \(String(describing: result.status)), expected 200")
                    try Self.expect(result.headers["ETag"] == "\"v2\"", "ETag \(result.headers["ETag"] ?? "none")")
                }
            }
        }
    }

    /// Item 2: a `GET` with its own `Range: bytes=100-199`, answered `206 bytes 100-199/1000` by a correct server
    /// and paused mid-body, resumes inside that range and ends as the same `206` with exactly those 100 bytes.
    func resumeKeepsTheCallersRange(_ route: ResumeRoute) -> Check {
        Check(name: "\(route.rawValue): a resume keeps the caller's own Range and its 206") {
            let count = Locked(0)
            try await Self.withServer(Self.handleSettings, contract: self) { _ in
                let number = count.withLock { count -> Int in
                    count += 1
                    return count
                }
                guard number == 1 else { return .download(LoopbackDownload(length: 1000)) }
                return .stream(
                    LoopbackStream(
                        status: 206,
                        headers: ["ETag": "\"loopback-v1\"", "Content-Range": "bytes 100-199/1000"],
                        chunks: [LoopbackDownload.bytes(100..<150), LoopbackDownload.bytes(150..<200)],
                        delay: 30))
            } body: { server, transport in
                let result = try await Self.pausedRead(route, server, transport, range: "bytes=100-199")
                try Self.expect(
                    result.body == LoopbackDownload.bytes(100..<200),
                    "the body is \(result.body.count) bytes that are not bytes 100-199 of the resource")
                let requests = server.requests
                try Self.expect(requests.count == 2, "\(requests.count) requests, expected 2")
                let range = requests.last?.headers["Range"] ?? "none"
                try Self.expect(
                    range.hasPrefix("bytes=1") && range.hasSuffix("-199") && range != "bytes=100-199",
                    "the resume asked for \(range), not the rest of bytes=100-199")
                if route == .handle {
                    try Self.expect(result.status == 206, "status \(String(describing: result.status)), expected 206")
                    try Self.expect(
                        result.headers["Content-Range"] == "bytes 100-199/1000",
                        "Content-Range \(result.headers["Content-Range"] ?? "none"), expected bytes 100-199/1000")
                }
            }
        }
    }

    /// Items 1 and 4: a resume answered `206` under the same `ETag` but with another total fails with a
    /// ``CRUDKit/CRUDError`` that names both ranges; nothing is appended.
    func resumeOfAnotherRangeFails(_ route: ResumeRoute) -> Check {
        Check(name: "\(route.rawValue): a resume answered with another range or total fails saying why") {
            let count = Locked(0)
            try await Self.withServer(Self.handleSettings, contract: self) { request in
                let number = count.withLock { count -> Int in
                    count += 1
                    return count
                }
                if number == 1 {
                    return Self.stalled(status: 200, etag: "\"v1\"", body: Data(repeating: 0x41, count: 100))
                }
                let start = Self.rangeStart(request) ?? 0
                return .response(
                    HTTPResponse(
                        status: 206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes \(start)-99/200"],
                        body: Data(repeating: 0x62, count: 100 - start)))
            } body: { server, transport in
                do {
                    let result = try await Self.pausedRead(route, server, transport)
                    throw Failure("a resume with another total was accepted: \(Self.summary(result.body))")
                } catch let error as CRUDError {
                    let text = String(describing: error)
                    try Self.expect(
                        text.contains("/100") && text.contains("/200"), "the error does not say what was asked: \(text)"
                    )
                }
            }
        }
    }

    /// Item 3: a `206` to a `GET` sent without `Range` reaches a handle's caller as that `206`, with its
    /// `Content-Range`, paused and resumed or not.
    var partialAnswersStayPartial: Check {
        Check(name: "request handle: a 206 reaches the caller as a 206 with its Content-Range") {
            let count = Locked(0)
            try await Self.withServer(Self.handleSettings, contract: self) { request in
                let number = count.withLock { count -> Int in
                    count += 1
                    return count
                }
                let headers: HTTPHeaders = ["ETag": "\"v1\"", "Content-Range": "bytes 0-49/100"]
                switch number {
                case 1:
                    return .response(
                        HTTPResponse(status: 206, headers: headers, body: Data(repeating: 0x41, count: 50)))
                case 2:
                    return .stream(
                        LoopbackStream(
                            status: 206, headers: headers,
                            chunks: [Data(repeating: 0x41, count: 20), Data(repeating: 0x41, count: 30)], delay: 30))
                default:
                    let start = Self.rangeStart(request) ?? 0
                    return .response(
                        HTTPResponse(
                            status: 206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes \(start)-49/100"],
                            body: Data(repeating: 0x41, count: 50 - start)))
                }
            } body: { server, transport in
                let api = API(baseURL: server.baseURL, transport: transport)
                let plain = try await api.handle(for: Request(.get, "file", decoder: .response)).value
                try Self.expect(plain.status == 206, "a 206 of bytes 0-49/100 arrived as \(plain.status)")
                try Self.expect(
                    plain.headers["Content-Range"] == "bytes 0-49/100" && plain.body.count == 50,
                    "Content-Range \(plain.headers["Content-Range"] ?? "none"), \(plain.body.count) bytes")
                let resumed = try await Self.pausedRead(.handle, server, transport)
                try Self.expect(
                    resumed.status == 206, "a resumed 206 of bytes 0-49/100 arrived as \(resumed.status ?? 0)")
                try Self.expect(
                    resumed.headers["Content-Range"] == "bytes 0-49/100"
                        && resumed.body == Data(repeating: 0x41, count: 50),
                    "Content-Range \(resumed.headers["Content-Range"] ?? "none"), \(Self.summary(resumed.body))")
                let range = server.requests.last?.headers["Range"] ?? "none"
                try Self.expect(range.hasSuffix("-49"), "the resume asked for \(range), beyond bytes 0-49")
            }
        }
    }

    /// A weak `ETag` cannot prove two answers byte-identical: a paused read starts over without `Range`.
    var weakValidatorsAreNeverResumed: Check {
        Check(name: "request handle: a weak ETag is never resumed") {
            let count = Locked(0)
            try await Self.withServer(Self.handleSettings, contract: self) { _ in
                let first = count.withLock { count -> Bool in
                    count += 1
                    return count == 1
                }
                let body = Data(repeating: 0x41, count: 100)
                if first { return Self.stalled(status: 200, etag: "W/\"v1\"", body: body) }
                return .response(HTTPResponse(status: 200, headers: ["ETag": "W/\"v1\""], body: body))
            } body: { server, transport in
                let result = try await Self.pausedRead(.handle, server, transport)
                try Self.expect(result.body == Data(repeating: 0x41, count: 100), Self.summary(result.body))
                let last = server.requests.last?.headers
                try Self.expect(
                    last?["Range"] == nil && last?["If-Range"] == nil,
                    "a weak ETag was resumed with Range \(last?["Range"] ?? "none")")
            }
        }
    }

    /// Item 4: a resumed `206` declaring `Content-Length: 9223372036854775800` (2^63 − 8) is an error, not a crash.
    func resumedHugeContentLength(_ route: ResumeRoute) -> Check {
        Check(
            name: "\(route.rawValue): a resumed 206 with Content-Length near Int64.max is an error, not a crash",
            knownLimitations: ["URLSessionTransport": Self.hugeLengthLimitation],
            abortsProcess: ["URLSessionTransport"]
        ) {
            let count = Locked(0)
            try await Self.withServer(Self.handleSettings, contract: self) { request in
                let first = count.withLock { count -> Bool in
                    count += 1
                    return count == 1
                }
                if first { return Self.stalled(status: 200, etag: "\"v1\"", body: Data(repeating: 0x41, count: 100)) }
                let start = Self.rangeStart(request) ?? 0
                let head =
                    "HTTP/1.1 206 Partial Content\r\nETag: \"v1\"\r\nContent-Range: bytes \(start)-99/100\r\n"
                    + "Content-Length: 9223372036854775800\r\nConnection: close\r\n\r\n"
                return .fault(.raw(Data(head.utf8) + Data(repeating: 0x62, count: 100 - start)))
            } body: { server, transport in
                do {
                    let result = try await Self.pausedRead(route, server, transport)
                    throw Failure("a 206 declaring 2^63 - 8 bytes was accepted: \(Self.summary(result.body))")
                } catch is CRUDError {
                    // An error, whichever: the process is alive.
                }
            }
        }
    }

    /// Item 5: a plain `GET` answered with `Content-Length: 9223372036854775800` is an error, not a crash.
    var hugeContentLength: Check {
        Check(
            name: "a Content-Length near Int64.max is an error, not a crash",
            knownLimitations: ["URLSessionTransport": Self.hugeLengthLimitation],
            abortsProcess: ["URLSessionTransport"]
        ) {
            try await Self.withServer(contract: self) { _ in
                .fault(.raw(Data("HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775800\r\n\r\nabc".utf8)))
            } body: { server, transport in
                try await Self.expectError("a CRUDError") {
                    try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("huge")))
                } matches: { _ in
                    true
                }
            }
        }
    }

    /// Item 6: a `304` carrying another `ETag` than the stored response's does not refresh it: the response cache
    /// asks again and serves the server's current body.
    var cacheRefusesAnotherValidator: Check {
        Check(name: "response cache: a 304 under another ETag does not serve the stored body") {
            let count = Locked(0)
            try await Self.withServer(contract: self) { request in
                let number = count.withLock { count -> Int in
                    count += 1
                    return count
                }
                if number == 1 {
                    return .response(
                        HTTPResponse(status: 200, headers: ["ETag": "\"v1\""], body: Data(#"{"v":1}"#.utf8)))
                }
                if request.headers["If-None-Match"] != nil {
                    return .response(HTTPResponse(status: 304, headers: ["ETag": "\"v2\""]))
                }
                return .response(HTTPResponse(status: 200, headers: ["ETag": "\"v2\""], body: Data(#"{"v":2}"#.utf8)))
            } body: { server, transport in
                let api = API(baseURL: server.baseURL, transport: transport).with {
                    $0.middleware.insert(CacheMiddleware(ResponseCache()))
                }
                _ = try await api.get("thing")
                let second = try await api.get("thing")
                let text = String(decoding: second.body, as: UTF8.self)
                try Self.expect(text == #"{"v":2}"#, "served \(text) under ETag \(second.headers["ETag"] ?? "none")")
            }
        }
    }

    // MARK: - Helpers

    static let hugeLengthLimitation =
        "FoundationNetworking on Linux aborts the process on a Content-Length of 2^63 - 8 or 2^63 - 1 before any "
        + "delegate callback; use AsyncHTTPClientTransport against untrusted servers (pinned in a child process by "
        + "the suite)"

    /// A reply that sends `body`'s first half, then stalls until the client closes the connection.
    static func stalled(status: Int, etag: String, body: Data) -> LoopbackReply {
        let half = body.count / 2
        return .stream(
            LoopbackStream(
                status: status, headers: ["ETag": etag], chunks: [body.prefix(half), body.dropFirst(half)], delay: 30))
    }

    /// The first byte a request's `Range: bytes=N-…` asks for.
    static func rangeStart(_ request: LoopbackRequest) -> Int? {
        guard let range = request.headers["Range"], range.hasPrefix("bytes=") else { return nil }
        return range.dropFirst(6).split(separator: "-").first.flatMap { Int($0) }
    }

    /// `A×50 b×50`-style summary of a body made of runs of bytes.
    static func summary(_ body: Data) -> String {
        var runs: [(UInt8, Int)] = []
        for byte in body {
            if let last = runs.last, last.0 == byte { runs[runs.count - 1].1 += 1 } else { runs.append((byte, 1)) }
        }
        if runs.count > 4 { return "\(body.count) bytes" }
        return runs.map { "\(Character(UnicodeScalar($0.0)))×\($0.1)" }.joined(separator: " ")
    }

    /// Reads `file` through `route`, paused once the first bytes arrived and resumed at once.
    static func pausedRead(
        _ route: ResumeRoute, _ server: LoopbackServer, _ transport: any Transport, range: String? = nil
    ) async throws -> ResumeResult {
        let (reached, signal) = AsyncStream.makeStream(of: Void.self)
        let observer = TransferObserver(download: { if $0.completedBytes > 0 { signal.yield() } })
        switch route {
        case .handle:
            let api = API(baseURL: server.baseURL, transport: transport)
            var request = Request(.get, "file", decoder: .response)
            if let range { request.headers["Range"] = range }
            request.observer = observer
            let handle = api.handle(for: request)
            try await first(of: reached, "no byte of the body arrived")
            guard handle.pause() == .paused else { throw Failure("a GET mid-body refused to pause") }
            handle.resume()
            let response = try await handle.value
            return ResumeResult(status: response.status, headers: response.headers, body: response.body)
        case .download:
            guard let resumable = transport as? any ResumableTransport else {
                throw Failure("\(type(of: transport)) is not a ResumableTransport: it cannot run a DownloadTask")
            }
            let destination = FileManager.default.temporaryDirectory
                .appendingPathComponent("crudkit-contract-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: destination) }
            var request = HTTPRequest(url: server.baseURL.appendingPathComponent("file"))
            if let range { request.headers["Range"] = range }
            let download = resumable.downloadTask(request, to: destination, observer: observer)
            try await first(of: reached, "no byte of the download arrived")
            download.pause()
            download.resume()
            let file = try await download.finished
            return ResumeResult(status: nil, headers: [:], body: try Data(contentsOf: file))
        }
    }
}
