import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Synchronization
import Testing

/// Hostile redirects over the wire through an `API` on `AsyncHTTPClientTransport`, where the root suite's attack
/// (URLSession and stubs) did not go: bodies resent from a file, a 3xx body the follower does not need (too big,
/// endless, cut short), one deadline and the idle timeout across hops, cancellation on hop 2, a download's
/// destination, and the odd `Location`s (fragment, userinfo, scheme-relative, `../`, `?`, whitespace) and `HEAD`.
@Suite(.timeLimit(.minutes(1))) struct RedirectHopAttackTests {
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

    // MARK: Bodies resent

    @Test func a307ResendsAFileBodyFromItsFirstByte() async throws {
        let server = try Self.start { request in
            request.path == "/upload" ? Self.moved(307, "/landed") : Self.echo(request)
        }
        defer { server.stop() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("crudkit-307-\(UUID().uuidString)")
        let bytes = LoopbackDownload.bytes(0..<300_000)
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let api = API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
        let response = try await api.send(
            HTTPRequest(method: .post, url: Self.url(server, "/upload"), body: .file(file)))
        #expect(Self.text(response) == "POST /landed 300000")
        let requests = server.requests
        #expect(requests.map(\.bodyLength) == [300_000, 300_000])
        #expect(requests.last?.body == bytes)
    }

    @Test func a307ResendsAMultipartBodyWithAFilePartWhole() async throws {
        let server = try Self.start { request in
            request.path == "/upload" ? Self.moved(307, "/landed") : Self.echo(request)
        }
        defer { server.stop() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("crudkit-mp-\(UUID().uuidString)")
        try LoopbackDownload.bytes(0..<150_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var form = MultipartForm(boundary: "b0undary")
        form.append(name: "title", value: "x")
        form.append(name: "video", fileURL: file)
        let api = API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
        let response = try await api.post("upload", body: .multipart(form))
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests.first?.bodyLength ?? 0 > 150_000)
        #expect(requests.last?.body == requests.first?.body)
        #expect(Self.text(response) == "POST /landed \(requests.first?.bodyLength ?? -1)")
    }

    @Test func a308ResendsAFileBodyTwiceAlong() async throws {
        let server = try Self.start { request in
            switch request.path {
            case "/one": Self.moved(308, "/two")
            case "/two": Self.moved(308, "/three")
            default: Self.echo(request)
            }
        }
        defer { server.stop() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("crudkit-308-\(UUID().uuidString)")
        let bytes = LoopbackDownload.bytes(0..<70_000)
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let api = API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
        let response = try await api.send(HTTPRequest(method: .put, url: Self.url(server, "/one"), body: .file(file)))
        #expect(Self.text(response) == "PUT /three 70000")
        #expect(server.requests.map(\.body) == [bytes, bytes, bytes])
    }

    @Test func a303AfterAnUploadBecomesABodylessGetAndUploadProgressNeverGoesBack() async throws {
        let server = try Self.start { request in
            request.path == "/upload" ? Self.moved(303, "/result") : Self.echo(request)
        }
        defer { server.stop() }
        let seen = Mutex<[Int64]>([])
        var request = Request(.post, "upload", body: .data(Data(count: 200_000)), decoder: .response)
        request.observer = TransferObserver(upload: { progress in seen.withLock { $0.append(progress.completedBytes) } }
        )
        let response = try await API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport()).send(request)
        #expect(Self.text(response) == "GET /result 0")
        let reports = seen.withLock { $0 }
        #expect(reports.last == 200_000)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0 <= $1 }, "\(reports)")
    }

    // MARK: The 3xx body

    @Test func a302WhoseBodyIsLargerThanTheResponseLimitIsStillFollowed() async throws {
        let server = try Self.start { request in
            request.path == "/big" ? Self.moved(302, "/ok", body: Data(count: 100_000)) : Self.echo(request)
        }
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumResponseSize: 10_000))
        let result: Result<HTTPResponse, any Error>
        do { result = .success(try await API(baseURL: server.baseURL, transport: transport).get("big")) } catch {
            result = .failure(error)
        }
        // Known issue: the transport collects a 3xx body like any other and fails with `responseTooLarge` before the
        // follower sees the `Location` (the follower never reads the body).
        let text = (try? result.get()).map(Self.text)
        withKnownIssue("a 3xx body over maximumResponseSize fails the exchange instead of being followed") {
            #expect(text == "GET /ok 0", "\(result)")
        }
    }

    @Test func a302WithAnEndlessBodyEndsByTheDeadline() async throws {
        let server = try Self.start { request in
            guard request.path == "/endless" else { return Self.echo(request) }
            return .stream(
                LoopbackStream(
                    status: 302, headers: ["Location": "/ok"],
                    chunks: Array(repeating: Data(count: 512), count: 20_000),
                    delay: 0.005, declaresLength: false))
        }
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport()).with { $0.deadline = 1 }
        let start = ContinuousClock.now
        await #expect {
            try await api.get("endless")
        } throws: { error in
            if case .timedOut(.deadline(1))? = error as? CRUDError { true } else { false }
        }
        #expect(start.duration(to: .now) < .seconds(10))
    }

    @Test func a302CutShortMidBodyFailsInsteadOfHanging() async throws {
        let server = try Self.start { request in
            guard request.path == "/cut" else { return Self.echo(request) }
            return .fault(
                .closeMidBody(
                    HTTPResponse(status: 302, headers: ["Location": "/ok"], body: Data(count: 1000)), after: 10))
        }
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
        await #expect(throws: CRUDError.self) { try await api.get("cut") }
    }

    @Test func a302WithConnectionCloseIsFollowedOnANewConnection() async throws {
        let server = try Self.start { request in
            guard request.path == "/closing" else { return Self.echo(request) }
            return .response(HTTPResponse(status: 302, headers: ["Location": "/ok", "Connection": "close"]))
        }
        defer { server.stop() }
        let response = try await API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport()).get("closing")
        #expect(Self.text(response) == "GET /ok 0")
        #expect(server.connectionsAccepted == 2)
    }

    @Test func hopsToTheSameOriginReuseTheConnection() async throws {
        let server = try Self.start { request in
            request.path == "/a" ? Self.moved(302, "/b") : Self.echo(request)
        }
        defer { server.stop() }
        let response = try await API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport()).get("a")
        #expect(Self.text(response) == "GET /b 0")
        #expect(server.connectionsAccepted == 1)
    }

    @Test func aDownloadTaskRedirectedToAnotherOriginResumesThereWithARange() async throws {
        let length = 2 << 20
        let other = try Self.start { _ in .download(LoopbackDownload(length: length, stallAfter: length / 2)) }
        defer { other.stop() }
        let server = try Self.start { _ in Self.moved(302, Self.url(other, "/data").absoluteString) }
        defer { server.stop() }
        let (reached, signal) = AsyncStream.makeStream(of: Void.self)
        let transport = AsyncHTTPClientTransport()
        let task = transport.downloadTask(
            HTTPRequest(url: Self.url(server, "/file"), headers: ["Authorization": "Bearer s3cret"]),
            observer: TransferObserver(download: { if $0.completedBytes > 1000 { signal.yield() } }))
        for await _ in reached { break }
        task.pause()
        task.resume()
        let file = try await task.finished
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(FileManager.default.contents(atPath: file.path) == LoopbackDownload.bytes(0..<length))
        let ranges = other.requests.map { $0.headers["Range"] ?? "-" }
        #expect(ranges.count == 2 && ranges.last?.hasPrefix("bytes=") == true && ranges.last != "bytes=0-", "\(ranges)")
        #expect(other.requests.allSatisfy { $0.headers["Authorization"] == nil })
    }

    // MARK: Time across hops

    /// Each hop answers after 0.5 s and the deadline is 1.2 s: `/h2` goes out at 0.5 s and `/h3` at 1 s at the
    /// earliest, `/ok` never (a deadline per hop would let the chain reach it and succeed). Whether `/h3` went out
    /// before 1.2 s depends on the machine ("exactly 3" failed at load 8: the first two hops took over 1.2 s);
    /// 2 or 3 is what one deadline over every hop allows.
    @Test func oneDeadlineCoversEveryHopOfASlowServer() async throws {
        let server = try Self.start { request in
            let hops = ["/h1": "/h2", "/h2": "/h3", "/h3": "/ok"]
            guard let next = hops[request.path] else { return Self.echo(request) }
            return .stream(
                LoopbackStream(status: 302, headers: ["Location": next], chunks: [], delay: 0.5, delaysHead: true))
        }
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport()).with { $0.deadline = 1.2 }
        await #expect {
            try await api.get("h1")
        } throws: { error in
            if case .timedOut(.deadline(1.2))? = error as? CRUDError { true } else { false }
        }
        #expect((2...3).contains(server.requests.count), "\(server.requests.map(\.path))")
    }

    @Test func theIdleTimeoutHoldsOnHopTwo() async throws {
        let server = try Self.start { request in
            request.path == "/first" ? Self.moved(302, "/silent") : .fault(.neverAnswer)
        }
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport()).with { $0.timeout = 0.5 }
        await #expect {
            try await api.get("first")
        } throws: { error in
            if case .timedOut(.idle)? = error as? CRUDError { true } else { false }
        }
    }

    @Test func cancellingWhileHopTwoIsInFlightEndsAtOnce() async throws {
        let (arrived, signal) = AsyncStream.makeStream(of: Void.self)
        let server = try Self.start { request in
            if request.path == "/first" { return Self.moved(302, "/silent") }
            signal.yield()
            return .fault(.neverAnswer)
        }
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
        let task = Task { try await api.get("first") }
        for await _ in arrived { break }
        let start = ContinuousClock.now
        task.cancel()
        let result = await task.result
        #expect(start.duration(to: .now) < .seconds(5))
        #expect {
            try result.get()
        } throws: { error in
            if case .cancelled? = error as? CRUDError { true } else { false }
        }
    }

    // MARK: A download's file

    @Test func aDownloadRedirectedToAFailureLeavesTheDestinationAsItWas() async throws {
        let server = try Self.start { request in
            request.path == "/gone"
                ? Self.moved(302, "/missing", body: Data("REDIRECT BODY".utf8))
                : .response(HTTPResponse(status: 404, body: Data("NOT FOUND".utf8)))
        }
        defer { server.stop() }
        let destination = FileManager.default.temporaryDirectory
            .appendingPathComponent("crudkit-dl-\(UUID().uuidString)")
        try Data("previous".utf8).write(to: destination)
        defer { try? FileManager.default.removeItem(at: destination) }
        let api = API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
        await #expect(throws: CRUDError.self) { try await api.download("gone", to: destination) }
        #expect(FileManager.default.contents(atPath: destination.path) == Data("previous".utf8))
        #expect(server.requests.map(\.path) == ["/gone", "/missing"])
    }

    // MARK: Odd locations

    func landed(at location: String, from path: String = "/start") async throws -> (HTTPResponse, LoopbackServer) {
        let server = try Self.start { request in
            request.target == path ? Self.moved(302, location) : Self.echo(request)
        }
        let api = API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
        do {
            return (try await api.send(HTTPRequest(url: Self.url(server, path))), server)
        } catch {
            server.stop()
            throw error
        }
    }

    @Test func aFragmentInTheLocationNeverReachesTheWire() async throws {
        let (response, server) = try await landed(at: "/next#part")
        defer { server.stop() }
        #expect(Self.text(response) == "GET /next 0")
        let raw = String(decoding: server.requests.last?.raw ?? Data(), as: UTF8.self)
        #expect(!raw.contains("#"))
    }

    @Test func aRelativeDotDotLocationResolvesAgainstTheHopThatAnswered() async throws {
        let (response, server) = try await landed(at: "../d", from: "/a/b/c")
        defer { server.stop() }
        #expect(Self.text(response) == "GET /a/d 0")
        #expect(response.url?.path == "/a/d")
    }

    @Test func aQuestionMarkOnlyLocationDropsTheQuery() async throws {
        let (response, server) = try await landed(at: "?", from: "/list?a=1")
        defer { server.stop() }
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(
            requests.last.map { $0.path == "/list" && !$0.target.contains("a=1") } == true, "\(requests.map(\.target))")
        #expect(response.status == 200)
    }

    @Test func whitespaceInTheLocationIsEncodedNotSentRaw() async throws {
        let (response, server) = try await landed(at: "/with space")
        defer { server.stop() }
        #expect(Self.text(response) == "GET /with%20space 0")
    }

    @Test func aSchemeRelativeLocationToAnotherPortDropsCredentials() async throws {
        let other = try Self.start { Self.echo($0) }
        defer { other.stop() }
        let server = try Self.start { _ in Self.moved(302, "//127.0.0.1:\(other.port)/x") }
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
            .with { $0.headers = ["Authorization": "Bearer s3cret"] }
        let response = try await api.get("start")
        #expect(Self.text(response) == "GET /x 0")
        #expect(response.url?.port == other.port)
        let raw = String(decoding: other.requests.first?.raw ?? Data(), as: UTF8.self)
        #expect(!raw.contains("s3cret"))
    }

    @Test func userinfoInTheLocationIsNeitherSentNorShown() async throws {
        let other = try Self.start { Self.echo($0) }
        defer { other.stop() }
        let server = try Self.start { _ in Self.moved(302, "http://user:pa55word@127.0.0.1:\(other.port)/x") }
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
        let result: Result<HTTPResponse, any Error>
        do { result = .success(try await api.get("start")) } catch { result = .failure(error) }
        let raw = String(decoding: other.requests.first?.raw ?? Data(), as: UTF8.self)
        #expect(!raw.lowercased().contains("authorization"), "\(raw)")
        #expect(!raw.contains("pa55word"))
        if case .success(let response) = result {
            #expect(response.url?.password == nil, "\(response.url?.absoluteString ?? "")")
        }
    }

    @Test func aRedirectedHeadStaysHeadAndHasNoBody() async throws {
        let server = try Self.start { request in
            request.path == "/start"
                ? Self.moved(301, "/next")
                : .response(HTTPResponse(status: 200, headers: ["Content-Length": "42"]))
        }
        defer { server.stop() }
        let api = API(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
        let response = try await api.send(HTTPRequest(method: .head, url: Self.url(server, "/start")))
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(server.requests.map(\.method) == ["HEAD", "HEAD"])
        #expect(response.url?.path == "/next")
    }
}
