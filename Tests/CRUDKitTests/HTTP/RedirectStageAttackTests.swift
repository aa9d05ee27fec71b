import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// Hostile probes of the redirect stage at the end of the chain (issue 41 step B): what the redirect rules promise
/// for credentials, cookies, limits and the one deadline, through an `API` over `StubTransport` (no socket) and over
/// `URLSessionTransport` against loopback servers (two ports are two origins).
@Suite struct RedirectStageAttackTests {
    static let home = "http://a.example.com"
    static let away = "http://b.example.com"

    /// `/go` on the home origin answers 302 to `/land` on `target`; every other path answers 200.
    static func stubs(status: Int = 302, target: String = away) -> StubTransport {
        let stubs = StubTransport()
        stubs.on(nil, "/**", .text("landed"))
        stubs.on(nil, "/go", .status(status, headers: ["Location": target + "/land"]))
        return stubs
    }

    /// The request that reached `origin`'s `/land`.
    static func landed(_ stubs: StubTransport, on origin: String = away) throws -> HTTPRequest {
        let request = try #require(stubs.recorder.requests.last { $0.request.url.absoluteString.hasPrefix(origin) })
        #expect(request.path == "/land")
        return request.request
    }

    // MARK: - Credentials the API's Redaction names

    /// The API's `Redaction` lists `X-Customer` and adds the word `pin`: both headers "never follow a redirect to
    /// another origin" (APIAndMiddleware.md), also for an API without the retry stage, the chain the CHANGELOG's own
    /// migration builds (`middleware: []`).
    @Test func headersTheAPIsRedactionNamesDoNotCrossOriginsWithoutTheRetryStage() async throws {
        let stubs = Self.stubs()
        let redaction = Redaction(headers: ["X-Customer"], secretNames: Redaction.defaultSecretNames.union(["pin"]))
        let api = API(
            configuration: APIConfiguration(
                baseURL: URL(string: Self.home)!,
                headers: ["X-Customer": "cus-s3cret-1", "X-Card-Pin": "pin-s3cret-2"],
                transport: stubs, redaction: redaction, middleware: []))
        _ = try await api.get("go")
        let first = try #require(stubs.recorder.requests.first)
        #expect(first.request.headers["X-Customer"] == "cus-s3cret-1")
        let landed = try Self.landed(stubs)
        #expect(landed.headers["X-Customer"] == nil, "a header the API's Redaction lists went to another origin")
        #expect(landed.headers["X-Card-Pin"] == nil, "a header named by the API's secret word went to another origin")
    }

    /// A middleware of the caller's own (not a closure `.adapt`), innermost, adds a header named by the API's secret
    /// word: the retry stage marked the request before it was added, so only the chain's end can still know it.
    @Test func aSecretHeaderAddedByAnInnerMiddlewareDoesNotCrossOrigins() async throws {
        struct Signer: Middleware {
            var name: MiddlewareName { "signer" }
            func intercept(
                _ request: HTTPRequest, context: MiddlewareContext, next: @escaping MiddlewareNext
            ) async throws -> HTTPResponse {
                var request = request
                request.headers["X-Card-Pin"] = "pin-s3cret-3"
                return try await next(request, context)
            }
        }
        let stubs = Self.stubs()
        let api = API(
            configuration: APIConfiguration(
                baseURL: URL(string: Self.home)!, transport: stubs,
                redaction: Redaction(secretNames: Redaction.defaultSecretNames.union(["pin"])),
                middleware: .standard + [Signer()]))
        _ = try await api.get("go")
        #expect(stubs.recorder.requests.first?.request.headers["X-Card-Pin"] == "pin-s3cret-3")
        #expect(try Self.landed(stubs).headers["X-Card-Pin"] == nil)
    }

    // MARK: - Cookies

    /// A `Secure` cookie of `https://a.example.com` never goes over plain HTTP, even when the server redirects
    /// there on its own host; a cookie for another `Path` stays home too. Another scheme is another origin, so the
    /// hop carries none of the jar's cookies at all (not even `plain`, which the jar alone would send).
    @Test func aSecureCookieDoesNotFollowARedirectToPlainHTTP() async throws {
        let stubs = StubTransport()
        stubs.on(nil, "/**", .text("landed"))
        stubs.on(nil, "/go", .status(302, headers: ["Location": "http://a.example.com/land"]))
        let jar = CookieJar()
        jar.store(
            setCookieHeaders: ["s=secure-s3cret; Secure; Path=/", "p=path-s3cret; Path=/go", "plain=visible; Path=/"],
            for: URL(string: "https://a.example.com/go")!)
        let api = API(
            configuration: APIConfiguration(
                baseURL: URL(string: "https://a.example.com")!, transport: stubs, cookieJar: jar))
        _ = try await api.get("go")
        let first = try #require(stubs.recorder.requests.first)
        #expect(first.request.headers["Cookie"]?.contains("secure-s3cret") == true)
        let landed = try Self.landed(stubs, on: "http://a.example.com")
        #expect(landed.headers["Cookie"] == nil)
    }

    /// The jar's cookie for the URL a redirect leads to (on the same origin, another path) is a credential this
    /// request sent on its last hop: an error that quotes a body echoing it never shows it, as it never shows the
    /// first hop's (the control) — through the standard chain and with a `CacheMiddleware`, which records the
    /// credentials of the reads it answers. A hop to another origin carries none of the jar's cookies.
    @Test(arguments: [false, true])
    func anErrorNeverShowsTheJarCookieALaterHopSent(cached: Bool) async throws {
        let stubs = StubTransport()
        stubs.on(nil, "/go", .status(302, headers: ["Location": "/land/here"]))
        stubs.on(nil, "/away", .status(302, headers: ["Location": Self.away + "/land"]))
        for path in ["/land/here", "/land", "/home"] {
            stubs.on(nil, path) { request in
                .text("you sent \(request.request.headers["Cookie"] ?? "nothing")", status: 403)
            }
        }
        let jar = CookieJar()
        jar.store(setCookieHeaders: ["pref=home-value-123456; Path=/"], for: URL(string: Self.home + "/")!)
        jar.store(setCookieHeaders: ["land=land-value-654321; Path=/land"], for: URL(string: Self.home + "/land/")!)
        jar.store(setCookieHeaders: ["pref=away-value-987654; Path=/"], for: URL(string: Self.away + "/")!)
        let api = API(
            configuration: APIConfiguration(baseURL: URL(string: Self.home)!, transport: stubs, cookieJar: jar)
        ).with {
            if cached { $0.middleware.insert(CacheMiddleware(ResponseCache(byteLimit: 1 << 20))) }
        }
        for (path, secrets) in [("home", ["home-value-123456"]), ("go", ["home-value-123456", "land-value-654321"])] {
            do {
                _ = try await api.get(path)
                Issue.record("\(path) did not fail")
            } catch {
                let described = "\(error) \(String(reflecting: error))"
                #expect(described.contains("you sent"), "\(path): the body is not quoted: \(described)")
                for secret in secrets {
                    #expect(!described.contains(secret), "\(path): \(described)")
                }
            }
        }
        let landed = try #require(stubs.recorder.requests.last { $0.request.url.path == "/land/here" })
        #expect(landed.request.headers["Cookie"]?.contains("land=land-value-654321") == true)
        _ = try? await api.get("away")
        let away = try Self.landed(stubs, on: Self.away)
        #expect(away.headers["Cookie"] == nil, "the jar's cookies went to another origin")
    }

    // MARK: - Stages around a redirected read

    /// A cached read whose first hop redirects: the second read revalidates through the redirect (the validator the
    /// last hop gave goes to the first URL and on to the last), and a 304 there is answered from the cache.
    @Test func aCachedReadWhoseFirstHopRedirectsRevalidatesThroughIt() async throws {
        let stubs = StubTransport()
        stubs.on(.get, "/a", .status(302, headers: ["Location": "/b"]))
        stubs.on(.get, "/b") { request in
            if request.request.headers["If-None-Match"] == "\"v1\"" { return .status(304, headers: ["ETag": "\"v1\""]) }
            return .text("fresh", headers: ["ETag": "\"v1\"", "Cache-Control": "no-cache"])
        }
        let api = API(baseURL: URL(string: Self.home)!, transport: stubs).with {
            $0.middleware.insert(CacheMiddleware(ResponseCache(byteLimit: 1 << 20)))
        }
        let first = try await api.get("a")
        let second = try await api.get("a")
        #expect(String(decoding: first.body, as: UTF8.self) == "fresh")
        #expect(second.status == 200)
        #expect(String(decoding: second.body, as: UTF8.self) == "fresh")
        #expect(stubs.recorder.requests.map(\.path) == ["/a", "/b", "/a", "/b"])
        #expect(stubs.recorder.last?.request.headers["If-None-Match"] == "\"v1\"")
    }

    /// A 401 on the second hop: on the same origin the refreshed token is sent again from the first hop and read;
    /// on another origin the token (old or new) never goes there, and the read fails with the 401 after one refresh.
    @Test func a401OnTheSecondHopRefreshesTheTokenButNeverSendsItAway() async throws {
        let stubs = StubTransport()
        stubs.on(.get, "/a", .status(302, headers: ["Location": "/b"]))
        stubs.on(.get, "/c", .status(302, headers: ["Location": Self.away + "/b"]))
        stubs.on(.get, "/b") { request in
            request.request.headers["Authorization"] == "Bearer new-tok" ? .text("ok") : .status(401)
        }
        let refreshes = Locked(0)
        let refresher = TokenRefresher(token: "old-tok") { _ in
            refreshes.withLock { $0 += 1 }
            return "new-tok"
        }
        let api = API(baseURL: URL(string: Self.home)!, transport: stubs).with {
            $0.middleware.insert(refresher, after: .retry)
        }
        let response = try await api.get("a")
        #expect(String(decoding: response.body, as: UTF8.self) == "ok")
        #expect(stubs.recorder.requests.map(\.path) == ["/a", "/b", "/a", "/b"])
        stubs.recorder.removeAll()
        await #expect {
            try await api.get("c")
        } throws: { error in
            isCRUDError(error) { if case .httpStatus(let response) = $0 { response.status == 401 } else { false } }
        }
        let away = stubs.recorder.requests.filter { $0.request.url.host == "b.example.com" }
        #expect(!away.isEmpty && away.allSatisfy { $0.request.headers["Authorization"] == nil })
        #expect(stubs.recorder.requests.count <= 4)
        #expect(refreshes.withLock { $0 } <= 2)
    }

    // MARK: - Limits

    /// The limit at its extremes: `Int.max` follows a chain of three; a negative one counts as 0 (a `GET`'s 302
    /// fails, a `POST`'s comes back as it is).
    @Test func maximumRedirectsAtTheExtremes() async throws {
        let stubs = StubTransport()
        stubs.on(nil, "/**", .text("landed"))
        stubs.on(nil, "/one", .status(302, headers: ["Location": "/two"]))
        stubs.on(nil, "/two", .status(301, headers: ["Location": "/three"]))
        stubs.on(nil, "/three", .status(303, headers: ["Location": "/land"]))
        let api = API(baseURL: URL(string: Self.home)!, transport: stubs)
        let far = try await api.with { $0.maximumRedirects = .max }.get("one")
        #expect(far.url?.path == "/land")
        await #expect {
            try await api.with { $0.maximumRedirects = .min }.get("one")
        } throws: { error in
            isCRUDError(error) { if case .tooManyRedirects(limit: 0) = $0 { true } else { false } }
        }
        let raw = api.with {
            $0.maximumRedirects = -1
            $0.middleware = []
        }
        let write = try await raw.send(HTTPRequest(method: .post, url: URL(string: Self.home + "/one")!))
        #expect(write.status == 302)
    }

    // MARK: - Over the wire

    /// A loopback server on its own port: `/go` 302 to `other`'s `/land` (another port, so another origin), `/slow`
    /// waits `delay` before each 302 to the next `/slow`, `/loop` 302 to itself, `/gone` 302 to a 404; `/set`
    /// answers each of its hops with a thousand `Set-Cookie`s; other paths 200.
    static func server(other: URL? = nil, delay: TimeInterval = 0.4) throws -> LoopbackServer {
        let hops = Locked(0)
        let server = LoopbackServer(synchronousHandler: { request in
            func moved(_ location: String, _ headers: HTTPHeaders = [:]) -> LoopbackReply {
                var headers = headers
                headers["Location"] = location
                return .response(HTTPResponse(status: 302, headers: headers, body: Data("moved-body".utf8)))
            }
            switch request.path {
            case "/go": return moved(other?.appendingPathComponent("land").absoluteString ?? "/land")
            case "/slow":
                let hop = hops.withLock { count in
                    count += 1
                    return count
                }
                return .stream(
                    LoopbackStream(
                        status: 302, headers: ["Location": "/slow?hop=\(hop)"], chunks: [Data("m".utf8)],
                        delay: delay, delaysHead: true))
            case "/loop": return moved("/loop")
            case "/gone": return moved("/missing")
            case "/missing": return .response(HTTPResponse(status: 404, body: Data("missing".utf8)))
            case "/set":
                let hop = hops.withLock { count in
                    count += 1
                    return count
                }
                var headers = HTTPHeaders()
                for index in 0..<1000 { headers.add(name: "Set-Cookie", value: "c\(hop)x\(index)=\(index); Path=/") }
                return moved(hop < 5 ? "/set" : "/land", headers)
            default:
                let cookie = request.headers["Cookie"] ?? ""
                return .response(HTTPResponse(status: 200, body: Data("ok \(cookie.utf8.count)".utf8)))
            }
        })
        try server.start()
        return server
    }
}

extension NetworkTests {
    /// The wire half of ``RedirectStageAttackTests``: `URLSessionTransport` behind an `API`, loopback servers.
    @Suite struct RedirectStageWireAttackTests {
        /// Two loopback servers on two ports (two origins): no credential header and not the caller's own `Cookie`
        /// reach the other port; `response.url` is the URL that answered.
        @Test func noCredentialAndNotTheCallersCookieReachAnotherPort() async throws {
            let other = LoopbackServer(synchronousHandler: { _ in .response(HTTPResponse(status: 200)) })
            try other.start()
            defer { other.stop() }
            let server = try RedirectStageAttackTests.server(other: other.baseURL)
            defer { server.stop() }
            let api = API(
                configuration: APIConfiguration(
                    baseURL: server.baseURL,
                    headers: [
                        "Authorization": "Bearer auth-s3cret", "X-API-Key": "key-s3cret",
                        "X-Tenant-Secret": "ten-s3cret",
                    ],
                    transport: URLSessionTransport()))
            let response = try await api.send(
                Request(.get, "go", headers: ["Cookie": "own=caller-s3cret"], decoder: .response))
            #expect(response.url?.port == other.port)
            #expect(server.requests.first?.headers["Cookie"] == "own=caller-s3cret")
            let landed = try #require(other.requests.first)
            #expect(!String(decoding: landed.raw, as: UTF8.self).contains("s3cret"))
        }

        /// The jar's cookie for the first server is not sent to the server on another port a redirect leads to:
        /// "credentials and cookies never sent to another origin" (`APIConfiguration.maximumRedirects`), and the port
        /// is part of the origin (`RedirectPolicy`).
        @Test func theJarsCookieOfTheFirstServerDoesNotFollowARedirectToAnotherPort() async throws {
            let other = LoopbackServer(synchronousHandler: { _ in .response(HTTPResponse(status: 200)) })
            try other.start()
            defer { other.stop() }
            let server = try RedirectStageAttackTests.server(other: other.baseURL)
            defer { server.stop() }
            let jar = CookieJar()
            jar.store(setCookieHeaders: ["sid=jar-s3cret; Path=/"], for: server.baseURL)
            let api = API(baseURL: server.baseURL, transport: URLSessionTransport()).with { $0.cookieJar = jar }
            _ = try await api.get("go")
            #expect(server.requests.first?.headers["Cookie"] == "sid=jar-s3cret")
            let landed = try #require(other.requests.first)
            // A hop to another origin carries none of the jar's cookies: a cookie is the host's, not the port's
            // (RFC 6265 §8.5), so the jar alone would send it to the other port.
            #expect(landed.headers["Cookie"] == nil, "the jar's cookie of port \(server.port) went to \(other.port)")
        }

        /// A server that waits 0.4 s before each 302 to the next hop, forever: with a deadline of 1 s and a limit of
        /// 1,000 the read ends at the deadline (not deadline × hops), with the request's own figure, through the
        /// standard chain (a coalesced read) and without it (the follower's own deadline).
        @Test(arguments: [true, false])
        func slowRedirectsForeverEndAtTheDeadline(standardChain: Bool) async throws {
            let server = try RedirectStageAttackTests.server()
            defer { server.stop() }
            let api = API(
                configuration: APIConfiguration(
                    baseURL: server.baseURL, transport: URLSessionTransport(configuration: .init(idleTimeout: 30)),
                    deadline: 1, middleware: standardChain ? .standard : [], maximumRedirects: 1000))
            let started = ContinuousClock.now
            await #expect {
                try await api.get("slow")
            } throws: { error in
                isCRUDError(error) { if case .timedOut(.deadline(1)) = $0 { true } else { false } }
            }
            let elapsed = started.duration(to: .now)
            #expect(elapsed < .seconds(2.5), "ended after \(elapsed)")
            #expect(server.requests.count <= 4)
        }

        /// A download to a file whose redirects fail (a loop past the limit, a chain that ends in 404) leaves the
        /// destination as it was; a successful one holds the final body, never a redirect's.
        @Test func aFailedRedirectedDownloadLeavesTheDestinationUntouched() async throws {
            let server = try RedirectStageAttackTests.server()
            defer { server.stop() }
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("crudkit-redirect-attack-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let destination = directory.appendingPathComponent("kept.bin")
            try Data("old".utf8).write(to: destination)
            let api = API(baseURL: server.baseURL, transport: URLSessionTransport())
            for path in ["loop", "gone"] {
                await #expect(throws: CRUDError.self) { try await api.download(path, to: destination) }
                #expect(FileManager.default.contents(atPath: destination.path) == Data("old".utf8), "\(path)")
            }
            let fine = try await api.download("go", to: destination)
            #expect(fine.status == 200)
            #expect(FileManager.default.contents(atPath: destination.path) == Data("ok 0".utf8))
        }

        /// A hostile server sends 1,000 `Set-Cookie`s on each of five 302s: the jar keeps at most its per-domain
        /// limit and the last hop's `Cookie` stays bounded.
        @Test func aThousandSetCookiesOnEachHopStayBounded() async throws {
            let server = try RedirectStageAttackTests.server()
            defer { server.stop() }
            let api = API(baseURL: server.baseURL, transport: URLSessionTransport())
            let response = try await api.get("set")
            let text = String(decoding: response.body, as: UTF8.self)
            let length = Int(text.split(separator: " ").last ?? "") ?? .max
            #expect(length < 50 * 64, "the last hop carried a Cookie of \(length) bytes")
            #expect(server.requests.map(\.path) == ["/set", "/set", "/set", "/set", "/set", "/land"])
        }
    }
}
