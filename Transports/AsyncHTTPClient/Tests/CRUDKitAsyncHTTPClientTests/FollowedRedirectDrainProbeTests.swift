import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Testing

/// Hostile servers against the dropped body of a redirect the API follows, on AsyncHTTPClientTransport: the 3 KiB
/// boundary, bodies split oddly, smuggled bytes after a drained body, a gzip bomb and coded bodies that decode to
/// nothing, timers and cancellation mid-drain, the streaming (download) path's connections and progress, HEAD, and
/// many at once under the connection gate.
@Suite struct FollowedRedirectDrainProbeTests {
    static let limit = 10_000

    static func transport(idle: TimeInterval = 10, connections: Int? = nil) -> AsyncHTTPClientTransport {
        var configuration = AsyncHTTPClientTransport.Configuration(idleTimeout: idle, maximumResponseSize: limit)
        if let connections { configuration.maximumConnectionsPerHost = connections }
        return AsyncHTTPClientTransport(configuration: configuration)
    }

    static func echo(_ request: LoopbackRequest) -> LoopbackReply {
        .response(
            HTTPResponse(status: 200, body: Data("\(request.method) \(request.target) \(request.bodyLength)".utf8)))
    }

    static func start(_ routes: [String: LoopbackReply]) throws -> LoopbackServer {
        let server = LoopbackServer(synchronousHandler: { request in routes[request.path] ?? echo(request) })
        try server.start()
        return server
    }

    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    static func redirect(count: Int, status: Int = 302) -> LoopbackReply {
        .response(HTTPResponse(status: status, headers: ["Location": "/ok"], body: Data(count: count)))
    }

    static func chunked(_ sizes: [Int], delay: TimeInterval = 0, declaresLength: Bool = false) -> LoopbackReply {
        .stream(
            LoopbackStream(
                status: 302, headers: ["Location": "/ok"], chunks: sizes.map { Data(repeating: 0x61, count: $0) },
                delay: delay, declaresLength: declaresLength))
    }

    // MARK: - The 3 KiB boundary

    @Test(.timeLimit(.minutes(1)), arguments: [(3072, 1), (3073, 2)])
    func declaredBoundary(count: Int, connections: Int) async throws {
        let server = try Self.start(["/r": Self.redirect(count: count)])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        #expect(Self.text(try await api.get("r")) == "GET /ok 0")
        #expect(server.connectionsAccepted == connections, "a \(count)-byte declared body")
    }

    /// At or under 3 KiB the connection is reused; over it, it may be reused too when the whole body was already read
    /// (one TCP read): harmless, so only the pool's soundness is held here.
    @Test(.timeLimit(.minutes(1)), arguments: [([1, 1023, 7, 2041], 1), ([1, 1023, 7, 2042], 2), ([3072], 1)])
    func chunkedBoundarySplitOddly(sizes: [Int], connections: Int) async throws {
        let server = try Self.start(["/r": Self.chunked(sizes)])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        #expect(Self.text(try await api.get("r")) == "GET /ok 0")
        #expect(server.connectionsAccepted <= connections, "chunks \(sizes)")
        #expect(Self.text(try await api.get("after")) == "GET /after 0")
    }

    // MARK: - Smuggled bytes after a drained body

    @Test(.timeLimit(.minutes(1)))
    func smuggledResponseAfterDrainedBodyIsNotTheNextHopsAnswer() async throws {
        let smuggled = Data("0123456789HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nEVIL".utf8)
        let server = try Self.start([
            "/r": .response(
                HTTPResponse(status: 302, headers: ["Location": "/ok", "Content-Length": "10"], body: smuggled))
        ])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        do {
            #expect(Self.text(try await api.get("r")) == "GET /ok 0")
        } catch CRUDError.transport {
            // AsyncHTTPClient closes a connection that sends bytes nobody asked for; when the hop to `/ok` had been
            // put on it (seen with the suite run one test at a time), that hop fails as a lost connection. Never
            // the smuggled answer.
        }
        // The pool is not poisoned: the next request gets its own answer.
        #expect(Self.text(try await api.get("after")) == "GET /after 0")
    }

    @Test(.timeLimit(.minutes(1)))
    func chunkedAndContentLengthOnARedirect() async throws {
        let raw = Data(
            ("HTTP/1.1 302 Found\r\nLocation: /ok\r\nTransfer-Encoding: chunked\r\nContent-Length: 5000\r\n\r\n"
                + "5\r\nhello\r\n0\r\n\r\n").utf8)
        let server = try Self.start(["/r": .fault(.raw(raw))])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        do {
            #expect(Self.text(try await api.get("r")) == "GET /ok 0")
        } catch CRUDError.transport {
            // Refusing the conflicting framing is as good.
        }
        #expect(Self.text(try await api.get("after")) == "GET /after 0")
    }

    // MARK: - A gzip bomb

    @Test(.timeLimit(.minutes(1)))
    func tenMegabyteGzipBombIsFollowedAndThePoolStaysSound() async throws {
        let bomb = LoopbackReply.response(
            HTTPResponse(
                status: 302, headers: ["Location": "/ok", "Content-Encoding": "gzip"],
                body: LoopbackGzip.zeros(10 << 20)))
        let server = try Self.start(["/bomb": bomb])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        #expect(Self.text(try await api.get("bomb")) == "GET /ok 0")
        #expect(Self.text(try await api.get("after")) == "GET /after 0")
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("f")
            _ = try await api.download("bomb", to: file)
            #expect(FileManager.default.contents(atPath: file.path) == Data("GET /ok 0".utf8))
        }
    }

    /// A gzip member that never ends and decodes to nothing: a gzip header, then empty stored deflate blocks (5 bytes
    /// each, `00 00 00 FF FF`), 102 to a chunk.
    static func emptyGzipBlocks(chunks: Int) -> [Data] {
        let header = Data([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff])
        let blocks = Data(Array(repeating: [UInt8]([0, 0, 0, 0xff, 0xff]), count: 102).flatMap { $0 })
        return [header] + Array(repeating: blocks, count: chunks)
    }

    /// A body's bytes are counted once decoded, so a followed redirect whose gzip body never decodes to a byte (empty
    /// deflate blocks) was read to its end or the deadline and never followed; a coded redirect body is now not read
    /// at all. Into memory and into a download's file alike.
    ///
    /// Alone, each is followed in about 15 ms; in the full suite, whose first seconds keep AsyncHTTPClient's event
    /// loops (two on two cores, shared by every test) busy, the same took up to 2.8 s (measured: the server saw `/ok`
    /// 0.4–1.9 s after `/r`). So the figures are far apart: a deadline of 30 s, 60 s of wire bytes, and an answer
    /// within 15 s. (This was marked a known issue of the download path; it was the busy loops.)
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func endlessGzipThatDecodesToNothingIsFollowedAfterAFewKilobytes(download: Bool) async throws {
        // About 60 s of wire bytes (12,000 chunks of 510 bytes, 5 ms apart), none of which decodes to a byte.
        let stream = LoopbackReply.stream(
            LoopbackStream(
                status: 302, headers: ["Location": "/ok", "Content-Encoding": "gzip"],
                chunks: Self.emptyGzipBlocks(chunks: 12_000), delay: 0.005, declaresLength: false))
        let server = try Self.start(["/r": stream])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport()).with {
            $0.deadline = 30
            $0.downloadDeadline = 30
        }
        let start = ContinuousClock.now
        // Before: CRUDError.timedOut(.deadline(30)).
        if download {
            try await withDirectory { directory in
                let file = directory.appendingPathComponent("f")
                _ = try await api.download("r", to: file)
                #expect(FileManager.default.contents(atPath: file.path) == Data("GET /ok 0".utf8))
            }
        } else {
            #expect(Self.text(try await api.get("r")) == "GET /ok 0")
        }
        #expect(start.duration(to: .now) < .seconds(15), "took \(start.duration(to: .now))")
    }

    /// A gzip-coded 302 declaring a gigabyte is followed after its head, as the same 302 without a coding is
    /// (RedirectProbes' gigabyte probe, and the identity case here); the declared length of a coded body was ignored,
    /// so it was drained and the close inside it failed the exchange.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func gzipRedirectDeclaringAGigabyteIsFollowedAfterItsHead(gzip: Bool) async throws {
        let coding = gzip ? "Content-Encoding: gzip\r\n" : ""
        let head = "HTTP/1.1 302 Found\r\nLocation: /ok\r\n\(coding)Content-Length: 1073741824\r\n\r\n"
        let server = try Self.start([
            "/r": .fault(.raw(Data(head.utf8) + (gzip ? LoopbackGzip.zeros(10) : Data(count: 10))))
        ])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        // Before, with gzip: CRUDError.transport (the connection lost mid-body).
        #expect(Self.text(try await api.get("r")) == "GET /ok 0")
    }

    @Test(.timeLimit(.minutes(1)))
    func extremeRedirectLimits() async throws {
        var routes: [String: LoopbackReply] = [:]
        for hop in 1...3 { routes["/h\(hop)"] = Self.redirect(count: 50_000) }
        routes["/h1"] = .response(HTTPResponse(status: 302, headers: ["Location": "/h2"], body: Data(count: 50_000)))
        routes["/h2"] = .response(HTTPResponse(status: 302, headers: ["Location": "/h3"], body: Data(count: 50_000)))
        let server = try Self.start(routes)
        defer { server.stop() }
        let unlimited = API(baseURL: server.baseURL, transport: Self.transport()).with { $0.maximumRedirects = .max }
        #expect(Self.text(try await unlimited.get("h1")) == "GET /ok 0")
        let negative = API(baseURL: server.baseURL, transport: Self.transport()).with { $0.maximumRedirects = -5 }
        await #expect {
            try await negative.get("h1")
        } throws: { error in
            if case CRUDError.responseTooLarge = error { true } else { false }
        }
    }

    // MARK: - Timers and cancellation mid-drain

    @Test(.timeLimit(.minutes(1)))
    func idleTimeoutMidDrain() async throws {
        let server = try Self.start(["/r": Self.chunked([100, 100], delay: 5, declaresLength: true)])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport(idle: 0.5))
        let start = ContinuousClock.now
        await #expect {
            try await api.get("r")
        } throws: { error in
            if case CRUDError.timedOut(.idle) = error { true } else { false }
        }
        try await withDirectory { directory in
            await #expect {
                try await api.download("r", to: directory.appendingPathComponent("f"))
            } throws: { error in
                if case CRUDError.timedOut(.idle) = error { true } else { false }
            }
        }
        #expect(start.duration(to: .now) < .seconds(8))
    }

    @Test(.timeLimit(.minutes(1)))
    func deadlineMidDrain() async throws {
        let server = try Self.start(["/r": Self.chunked(Array(repeating: 300, count: 10), delay: 0.3)])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport()).with { $0.deadline = 1 }
        let start = ContinuousClock.now
        await #expect {
            try await api.get("r")
        } throws: { error in
            if case CRUDError.timedOut(.deadline(1)) = error { true } else { false }
        }
        #expect(start.duration(to: .now) < .seconds(5))
    }

    /// The deadline on the streaming (download) path, while a followed redirect's short body trickles (draining) and
    /// while a 200's body trickles; an empty-gzip redirect body that trickles is not read, so the redirect is
    /// followed at its head. The bodies trickle for 20 s or more and each bound is under half that: the suite's busy
    /// event loops have made an exchange 2.8 s late (see the endless-gzip test).
    @Test(.timeLimit(.minutes(1)), arguments: ["drain", "gzip", "ok"])
    func downloadDeadlineMidBody(kind: String) async throws {
        let reply: LoopbackReply
        switch kind {
        case "drain": reply = Self.chunked(Array(repeating: 50, count: 40), delay: 0.5)
        case "gzip":
            reply = .stream(
                LoopbackStream(
                    status: 302, headers: ["Location": "/ok", "Content-Encoding": "gzip"],
                    chunks: Self.emptyGzipBlocks(chunks: 60), delay: 0.5, declaresLength: false))
        default:
            reply = .stream(LoopbackStream(chunks: Array(repeating: Data(count: 300), count: 40), delay: 0.5))
        }
        let server = try Self.start(["/r": reply])
        defer { server.stop() }
        // The gzip redirect is followed (before: read to the deadline); the others end at the deadline (before: at
        // the body's end, 20 s on).
        let deadline: TimeInterval = kind == "gzip" ? 20 : 1
        let api = API(baseURL: server.baseURL, transport: Self.transport()).with {
            $0.deadline = deadline
            $0.downloadDeadline = deadline
        }
        let start = ContinuousClock.now
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("f")
            if kind == "gzip" {
                _ = try await api.download("r", to: file)
                #expect(FileManager.default.contents(atPath: file.path) == Data("GET /ok 0".utf8))
                return
            }
            await #expect {
                try await api.download("r", to: file)
            } throws: { error in
                if case CRUDError.timedOut(.deadline(1)) = error { true } else { false }
            }
        }
        #expect(start.duration(to: .now) < .seconds(9), "took \(start.duration(to: .now))")
    }

    @Test(.timeLimit(.minutes(1)))
    func cancellationMidDrain() async throws {
        let (arrived, signal) = AsyncStream.makeStream(of: Void.self)
        let server = LoopbackServer(synchronousHandler: { request in
            if request.path == "/r" {
                signal.yield()
                return Self.chunked([100, 100, 100], delay: 5, declaresLength: true)
            }
            return Self.echo(request)
        })
        try server.start()
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        let task = Task { try await api.get("r") }
        for await _ in arrived { break }
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        task.cancel()
        let result = await task.result
        // The body's next piece is 5 s away and the rest 10 s; busy loops have made an exchange 2.8 s late.
        #expect(start.duration(to: .now) < .seconds(4.5))
        #expect(throws: CRUDError.self) { try result.get() }
        if case .failure(let error) = result {
            #expect({ if case CRUDError.cancelled = error { true } else { false } }(), "\(error)")
        }
        #expect(Self.text(try await api.get("after")) == "GET /after 0")
    }

    // MARK: - The streaming path: a download

    @Test(.timeLimit(.minutes(1)), arguments: [(2_000, 1), (5_000, 2)])
    func downloadConnections(count: Int, connections: Int) async throws {
        let server = try Self.start(["/r": Self.redirect(count: count)])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("f")
            _ = try await api.download("r", to: file)
            #expect(FileManager.default.contents(atPath: file.path) == Data("GET /ok 0".utf8))
        }
        // A 5,000-byte body that arrived with the head is read whole by AsyncHTTPClient and the connection reused:
        // harmless (see `downloadLeavesATricklingLongBodyUnread` for a body that is not all there).
        #expect(server.connectionsAccepted <= connections, "a \(count)-byte body")
        #expect(Self.text(try await api.get("after")) == "GET /after 0")
    }

    /// A 302 declaring 7.5 MiB whose body trickles in (64 KiB every 100 ms, about 12 s in all): a download must not wait for
    /// it, nor keep reading it once the redirect is followed.
    @Test(.timeLimit(.minutes(1)))
    func downloadLeavesATricklingLongBodyUnread() async throws {
        let server = try Self.start([
            "/r": Self.chunked(Array(repeating: 65_536, count: 120), delay: 0.1, declaresLength: true)
        ])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        let start = ContinuousClock.now
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("f")
            _ = try await api.download("r", to: file)
            #expect(FileManager.default.contents(atPath: file.path) == Data("GET /ok 0".utf8))
        }
        #expect(start.duration(to: .now) < .seconds(6), "took \(start.duration(to: .now))")
        #expect(server.connectionsAccepted == 2)
        let collected = ContinuousClock.now
        #expect(Self.text(try await api.get("r")) == "GET /ok 0")
        #expect(collected.duration(to: .now) < .seconds(6), "took \(collected.duration(to: .now))")
    }

    @Test(.timeLimit(.minutes(1)))
    func downloadProgressNeverCountsTheRedirectsBody() async throws {
        let length = 20_000
        let server = try Self.start([
            "/r": Self.chunked([1_000, 1_000, 1_000], declaresLength: true),
            "/ok": .download(LoopbackDownload(length: length)),
        ])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        let seen = Reports()
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("f")
            _ = try await api.download("r", to: file) { seen.add($0) }
            #expect(FileManager.default.contents(atPath: file.path) == LoopbackDownload.bytes(0..<length))
            #expect(!FileManager.default.fileExists(atPath: file.path + ".partial"))
        }
        let reports = seen.all
        #expect(!reports.isEmpty)
        #expect(reports.allSatisfy { $0.expectedBytes == Int64(length) }, "\(reports)")
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes }, "\(reports)")
        #expect(reports.last?.completedBytes == Int64(length))
    }

    @Test(.timeLimit(.minutes(1)))
    func downloadTaskProgressNeverCountsTheRedirectsBody() async throws {
        let length = 20_000
        let server = try Self.start([
            "/r": Self.chunked([1_000, 1_000, 1_000], declaresLength: true),
            "/ok": .download(LoopbackDownload(length: length)),
        ])
        defer { server.stop() }
        let seen = Reports()
        let task = Self.transport().downloadTask(
            HTTPRequest(url: server.baseURL.appendingPathComponent("r")),
            observer: TransferObserver(download: { seen.add($0) }))
        let file = try await task.finished
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(FileManager.default.contents(atPath: file.path) == LoopbackDownload.bytes(0..<length))
        let reports = seen.all
        #expect(reports.allSatisfy { $0.expectedBytes == Int64(length) }, "\(reports)")
        #expect(task.progress.completedBytes == Int64(length))
    }

    // MARK: - A head then the connection closing at once

    @Test(.timeLimit(.minutes(1)))
    func redirectHeadThenCloseIsFollowedEveryTime() async throws {
        let server = try Self.start([
            "/gone": .fault(.raw(Data("HTTP/1.1 302 Found\r\nLocation: /ok\r\nContent-Length: 100000\r\n\r\n".utf8))),
            "/cut": .fault(
                .raw(
                    Data("HTTP/1.1 302 Found\r\nLocation: /ok\r\nContent-Length: 100000\r\n\r\n".utf8)
                        + Data(count: 4000))),
        ])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        var failures: [String] = []
        for round in 0..<40 {
            let path = round % 2 == 0 ? "gone" : "cut"
            do {
                let text = Self.text(try await api.get(path))
                if text != "GET /ok 0" { failures.append("\(path): \(text)") }
            } catch {
                failures.append("\(path): \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of 40 failed: \(failures.prefix(3))")
    }

    // MARK: - A streamed upload answered by a 307 with a body

    @Test(.timeLimit(.minutes(1)), arguments: [(2_000, 1), (50_000, 2)])
    func fileUploadRedirectedWithABody(count: Int, connections: Int) async throws {
        let server = try Self.start(["/up": Self.redirect(count: count, status: 307)])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("body")
            try LoopbackDownload.bytes(0..<300_000).write(to: file)
            let response = try await api.send(
                HTTPRequest(method: .post, url: server.baseURL.appendingPathComponent("up"), body: .file(file)))
            #expect(Self.text(response) == "POST /ok 300000")
        }
        #expect(server.connectionsAccepted == connections, "a \(count)-byte body")
    }

    @Test(.timeLimit(.minutes(1)))
    func smuggledResponseAfterDrainedBodyOnADownload() async throws {
        let smuggled = Data("0123456789HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nEVIL".utf8)
        let server = try Self.start([
            "/r": .response(
                HTTPResponse(status: 302, headers: ["Location": "/ok", "Content-Length": "10"], body: smuggled))
        ])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("f")
            _ = try await api.download("r", to: file)
            #expect(FileManager.default.contents(atPath: file.path) == Data("GET /ok 0".utf8))
        }
    }

    // MARK: - Not followed on a download, shared reads, a paused handle

    @Test(.timeLimit(.minutes(1)))
    func unfollowedRedirectNeverReachesADownloadsFile() async throws {
        let server = try Self.start(["/r": Self.redirect(count: 500)])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport()).with { $0.maximumRedirects = 0 }
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("f")
            do {
                let response = try await api.download("r", to: file)
                #expect(response.status != 200, "\(response)")
            } catch {}
            let contents = FileManager.default.contents(atPath: file.path)
            #expect(contents == nil || contents?.isEmpty == true, "the 3xx's bytes reached the file")
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(left.allSatisfy { !$0.hasSuffix(".partial") }, "\(left)")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func coalescedReadsOfADrainedRedirect() async throws {
        let server = try Self.start(["/r": Self.chunked([1_000, 1_000], delay: 0.2, declaresLength: true)])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport()).with {
            $0.middleware.append(CoalescingMiddleware())
        }
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { Self.text(try await api.get("r")) } }
            for try await text in group { #expect(text == "GET /ok 0") }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func pausedHandleMidDrainResumesAndFollows() async throws {
        let (arrived, signal) = AsyncStream.makeStream(of: Void.self)
        let server = LoopbackServer(synchronousHandler: { request in
            if request.path == "/r" {
                signal.yield()
                return Self.chunked(Array(repeating: 300, count: 8), delay: 0.1, declaresLength: true)
            }
            return Self.echo(request)
        })
        try server.start()
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        let handle = api.handle(for: Request(.get, "r", decoder: .response))
        var iterator = arrived.makeAsyncIterator()
        _ = await iterator.next()
        _ = handle.pause()
        handle.resume()
        let response = try await handle.value
        #expect(Self.text(response) == "GET /ok 0")
        #expect(server.requests.map(\.path).filter { $0 == "/ok" }.count == 1, "\(server.requests.map(\.path))")
    }

    // MARK: - Codings AsyncHTTPClient does not decode, a 303 after a write, a 307 write to another origin

    @Test(.timeLimit(.minutes(1)), arguments: ["br", "gzip, gzip", "x-gzip", "identity, gzip"])
    func undecodedCodingOnAFollowedRedirect(coding: String) async throws {
        let server = try Self.start([
            "/r": .response(
                HTTPResponse(
                    status: 302, headers: ["Location": "/ok", "Content-Encoding": coding],
                    body: Data(repeating: 7, count: 50_000)))
        ])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        #expect(Self.text(try await api.get("r")) == "GET /ok 0")
    }

    @Test(.timeLimit(.minutes(1)))
    func a303AfterAPostWithABigBodyIsFollowed() async throws {
        let server = try Self.start(["/w": Self.redirect(count: 50_000, status: 303)])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        let response = try await api.send(
            HTTPRequest(method: .post, url: server.baseURL.appendingPathComponent("w"), body: .data(Data("x".utf8))))
        #expect(Self.text(response) == "GET /ok 0")
    }

    @Test(.timeLimit(.minutes(1)))
    func a307WriteToAnotherOriginKeepsItsBody() async throws {
        let other = try Self.start([:])
        defer { other.stop() }
        let target = other.baseURL.appendingPathComponent("elsewhere").absoluteString
        let server = try Self.start([
            "/small": .response(HTTPResponse(status: 307, headers: ["Location": target], body: Data("kept".utf8))),
            "/big": .response(HTTPResponse(status: 307, headers: ["Location": target], body: Data(count: 50_000))),
        ])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        let body = HTTPBody.data(Data("secret".utf8))
        var response: HTTPResponse
        do {
            response = try await api.send(
                HTTPRequest(method: .post, url: server.baseURL.appendingPathComponent("small"), body: body))
        } catch CRUDError.httpStatus(let answer) {
            response = answer
        }
        #expect(response.status == 307)
        #expect(Self.text(response) == "kept")
        await #expect {
            try await api.send(
                HTTPRequest(method: .post, url: server.baseURL.appendingPathComponent("big"), body: body))
        } throws: { error in
            if case CRUDError.responseTooLarge = error { true } else { false }
        }
        #expect(other.requests.isEmpty)
    }

    @Test(.timeLimit(.minutes(1)), arguments: [100_000, 2_000])
    func cookiesOfADrainedRedirectAreKept(count: Int) async throws {
        let server = LoopbackServer(synchronousHandler: { request in
            if request.path == "/r" {
                return .response(
                    HTTPResponse(
                        status: 302, headers: ["Location": "/ok", "Set-Cookie": "s=1; Path=/"], body: Data(count: count)
                    ))
            }
            let cookie = request.headers["Cookie"] ?? "none"
            return .response(HTTPResponse(status: 200, body: Data(cookie.utf8)))
        })
        try server.start()
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        let response = try await api.get("r")
        #expect(Self.text(response) == "s=1")
        #expect(response.url?.path == "/ok")
    }

    // MARK: - HEAD

    @Test(.timeLimit(.minutes(1)))
    func headRedirectDeclaringAHugeBodyReusesTheConnection() async throws {
        let server = try Self.start([
            "/r": .response(HTTPResponse(status: 302, headers: ["Location": "/ok", "Content-Length": "1000000"]))
        ])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport())
        let response = try await api.send(HTTPRequest(method: .head, url: server.baseURL.appendingPathComponent("r")))
        #expect(response.status == 200)
        #expect(server.requests.map(\.method) == ["HEAD", "HEAD"])
        #expect(server.connectionsAccepted == 1)
    }

    // MARK: - Many at once through the connection gate

    @Test(.timeLimit(.minutes(1)))
    func manyRedirectsWithLongBodiesThroughTwoConnections() async throws {
        let server = try Self.start(["/long": Self.redirect(count: 50_000), "/short": Self.redirect(count: 1_000)])
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: Self.transport(connections: 2))
        try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<64 {
                group.addTask { Self.text(try await api.get(index % 2 == 0 ? "long" : "short")) }
            }
            for try await text in group { #expect(text == "GET /ok 0") }
        }
    }

    // MARK: - Helpers

    final class Reports: Sendable {
        private let box = Mutex2<[TransferProgress]>([])
        func add(_ progress: TransferProgress) { box.with { $0.append(progress) } }
        var all: [TransferProgress] { box.with { $0 } }
    }

    @discardableResult
    func withDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("crudkit-red5-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }
}

/// A value behind a lock, for the probes' reports.
final class Mutex2<Value>: @unchecked Sendable {
    // Safety: `value` is only read and written under `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func with<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
