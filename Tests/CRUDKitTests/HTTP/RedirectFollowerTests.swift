import CRUDKitTesting
import Foundation
import Synchronization
import Testing

@testable import CRUDKit
@_spi(TransportKit) @testable import CRUDKitHTTP

/// The redirect rules, held once by `RedirectFollower` at the end of the chain, over `StubTransport` (no socket): a
/// transport returns each 3xx as it is and the follower decides. What `RedirectPolicy` promises (methods, bodies,
/// credentials and cookies across origins, `Location` parsing) and what the stage adds (the limit, one deadline
/// across hops, the jar per hop, cancellation between hops).
@Suite struct RedirectFollowerTests {
    static let base = "http://api.example.com"

    /// A stub whose `/to/<status>` answers that status with `Location: <location>` (for every method), and whose
    /// other paths answer 200 with the method and body length.
    static func stubs(location: String = "/done", headers: HTTPHeaders = [:]) -> StubTransport {
        let stubs = StubTransport()
        stubs.on(nil, "/**") { request in
            .text("\(request.request.method.rawValue) \(request.request.body.data?.count ?? 0)")
        }
        stubs.on(nil, "/to/:status") { request in
            guard let status = Int(request.parameters["status"] ?? "") else {
                return .text("\(request.request.method.rawValue) 0")
            }
            var fields = headers
            fields["Location"] = location
            return .status(status, headers: fields)
        }
        return stubs
    }

    static func url(_ path: String, _ base: String = base) -> URL { URL(string: base + path)! }

    static func follow(
        _ request: HTTPRequest, through stubs: StubTransport, limit: Int = 5, jar: CookieJar? = nil
    ) async throws -> HTTPResponse {
        try await RedirectFollower(limit: limit, jar: jar).follow(request) { try await stubs.send($0) }
    }

    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    // MARK: - Methods and bodies

    @Test(arguments: [301, 302])
    func movedAndFoundAreFollowedForGetAndHeadOnly(status: Int) async throws {
        for method in [HTTPMethod.get, .head, .post, .put, .patch, .delete] {
            let stubs = Self.stubs()
            let body: HTTPBody = method == .get || method == .head ? .none : .data(Data("{}".utf8))
            let response = try await Self.follow(
                HTTPRequest(method: method, url: Self.url("/to/\(status)"), body: body), through: stubs)
            if method == .get || method == .head {
                #expect(response.status == 200, "\(method) \(status)")
                #expect(stubs.recorder.requests.map(\.path) == ["/to/\(status)", "/done"])
                #expect(stubs.recorder.last?.method == method)
            } else {
                #expect(response.status == status, "a \(method) was turned into a GET by \(status)")
                #expect(response.headers["Location"] == "/done")
                #expect(stubs.recorder.count == 1)
            }
        }
    }

    @Test func seeOtherBecomesAGetWithoutBodyOrBodyHeadersAndHeadStaysHead() async throws {
        let stubs = Self.stubs()
        let headers: HTTPHeaders = [
            "Content-Type": "application/json", "Content-Length": "2", "Content-Encoding": "gzip",
            "Transfer-Encoding": "chunked", "Accept": "application/json",
        ]
        let response = try await Self.follow(
            HTTPRequest(method: .post, url: Self.url("/to/303"), headers: headers, body: .data(Data("{}".utf8))),
            through: stubs)
        #expect(Self.text(response) == "GET 0")
        let last = try #require(stubs.recorder.last?.request)
        #expect(last.method == .get && last.body.isEmpty)
        for name in ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"] {
            #expect(last.headers[name] == nil, "\(name) went with the GET")
        }
        #expect(last.headers["Accept"] == "application/json")

        let head = Self.stubs()
        _ = try await Self.follow(HTTPRequest(method: .head, url: Self.url("/to/303")), through: head)
        #expect(head.recorder.last?.method == .head)
    }

    @Test(arguments: [307, 308])
    func temporaryAndPermanentRedirectsResendMethodAndBody(status: Int) async throws {
        let stubs = Self.stubs()
        let body = Data(#"{"name":"Ada"}"#.utf8)
        let response = try await Self.follow(
            .json(.patch, url: Self.url("/to/\(status)"), body: body), through: stubs)
        #expect(Self.text(response) == "PATCH \(body.count)")
        let last = try #require(stubs.recorder.last?.request)
        #expect(last.body == .data(body))
        #expect(last.headers["Content-Type"] == "application/json")
    }

    // MARK: - Origins

    static let credentials: HTTPHeaders = [
        "Authorization": "Bearer s3cret", "Cookie": "session=s3cret", "Proxy-Authorization": "Basic s3cret",
        "X-API-Key": "s3cret", "Api-Key": "s3cret", "X-Auth-Token": "s3cret", "X-Access-Token": "s3cret",
        "X-CSRF-Token": "s3cret", "X-XSRF-Token": "s3cret", "X-Tenant-Secret": "s3cret", "X-Custom-Auth": "s3cret",
        "X-Session-Id": "s3cret", "X-Marked": "s3cret", "X-Trace": "t",
    ]

    @Test(arguments: [
        "http://other.example.com/landing", "https://api.example.com/landing", "http://api.example.com:8080/landing",
        "//other.example.com/landing",
    ])
    func credentialsNeverCrossOrigins(location: String) async throws {
        for status in [302, 307] {
            let stubs = Self.stubs(location: location)
            var request = HTTPRequest(url: Self.url("/to/\(status)"), headers: Self.credentials)
            request.sensitiveHeaderNames.insert("x-marked")
            let response = try await Self.follow(request, through: stubs)
            #expect(response.status == 200)
            let sent = try #require(stubs.recorder.last?.request)
            #expect(sent.url.path == "/landing")
            #expect(sent.headers.fields.map(\.name) == ["X-Trace"], "\(location) \(status) received \(sent.headers)")
        }
    }

    /// The caller's user info (`http://me:s3cret@…`, which URLSession turns into `Authorization: Basic`) stays on
    /// its own origin, also when the `Location` spells it out for another host; a user info the server brings is
    /// dropped anywhere; a relative location keeps the caller's own.
    @Test(
        arguments: [
            ("http://me:s3cret@other.example.com/x", nil),
            ("http://intruder:pw@api.example.com/x", nil),
            ("/x", "me:s3cret"),
            ("http://me:s3cret@api.example.com/x", "me:s3cret"),
        ] as [(String, String?)])
    func userInfoNeverGoesToAnotherOrigin(location: String, kept: String?) async throws {
        let stubs = Self.stubs(location: location)
        let response = try await Self.follow(
            HTTPRequest(url: URL(string: "http://me:s3cret@api.example.com/to/302")!), through: stubs)
        let landed = try #require(stubs.recorder.requests.last)
        #expect(landed.request.url.path == "/x")
        let userInfo = landed.request.url.user.map { "\($0):\(landed.request.url.password ?? "")" }
        #expect(userInfo == kept, "\(location) landed on \(landed.request.url.absoluteString)")
        #expect(response.url?.password == kept.map { _ in "s3cret" })
    }

    @Test func credentialsStayOnTheSameOrigin() async throws {
        let stubs = Self.stubs(location: "http://API.example.com:80/landing")
        var request = HTTPRequest(url: Self.url("/to/302"), headers: Self.credentials)
        request.sensitiveHeaderNames.insert("x-marked")
        _ = try await Self.follow(request, through: stubs)
        #expect(stubs.recorder.last?.request.headers == Self.credentials)
    }

    @Test(arguments: [307, 308])
    func aBodyIsNeverResentToAnotherOrigin(status: Int) async throws {
        let stubs = Self.stubs(location: "http://other.example.com/landing")
        let response = try await Self.follow(
            HTTPRequest(method: .post, url: Self.url("/to/\(status)"), body: .data(Data("password=s3cret".utf8))),
            through: stubs)
        #expect(response.status == status)
        #expect(stubs.recorder.count == 1)
    }

    // MARK: - Location

    @Test(arguments: [
        ("/people/", "http://api.example.com/people/"),
        ("next", "http://api.example.com/to/next"),
        ("../up?x=1", "http://api.example.com/up?x=1"),
        ("  /trimmed  ", "http://api.example.com/trimmed"),
        ("/with space", "http://api.example.com/with%20space"),
        ("https://secure.example.com/a", "https://secure.example.com/a"),
    ])
    func locationsResolveAgainstTheURLThatAnswered(location: String, expected: String) async throws {
        let stubs = Self.stubs(location: location)
        let response = try await Self.follow(HTTPRequest(url: Self.url("/to/302")), through: stubs)
        #expect(response.status == 200)
        #expect(stubs.recorder.last?.request.url.absoluteString == expected)
        #expect(response.url?.absoluteString == expected, "response.url is the URL that answered")
    }

    @Test(arguments: ["", "   ", "file:///etc/passwd", "javascript:alert(1)", "mailto:a@example.com", "http://"])
    func aMissingOrForeignLocationEndsTheChainWithTheRedirect(location: String) async throws {
        let stubs = Self.stubs(location: location)
        let response = try await Self.follow(HTTPRequest(url: Self.url("/to/302")), through: stubs)
        #expect(response.status == 302)
        #expect(stubs.recorder.count == 1)
        #expect(response.url == Self.url("/to/302"))
    }

    // MARK: - Limit, loops, cancellation

    @Test(arguments: [0, 1, 3])
    func aLoopStopsAtTheLimitWithoutSendingOneMore(limit: Int) async throws {
        let stubs = StubTransport()
        stubs.on(nil, "/loop", .status(302, headers: ["Location": "/loop"]))
        await #expect {
            try await Self.follow(HTTPRequest(url: Self.url("/loop")), through: stubs, limit: limit)
        } throws: { error in
            isCRUDError(error) { if case .tooManyRedirects(limit: limit) = $0 { true } else { false } }
        }
        #expect(stubs.recorder.count == limit + 1)
    }

    @Test func exactlyTheLimitIsFollowed() async throws {
        let stubs = StubTransport()
        stubs.on(nil, "/hop/:n") { request in
            let left = Int(request.parameters["n"] ?? "") ?? 0
            return left == 0 ? .text("end") : .status(302, headers: ["Location": "/hop/\(left - 1)"])
        }
        let response = try await Self.follow(HTTPRequest(url: Self.url("/hop/3")), through: stubs, limit: 3)
        #expect(Self.text(response) == "end")
        #expect(response.url == Self.url("/hop/0"))
    }

    @Test func aCancelledTaskStopsBetweenHops() async throws {
        let sent = Mutex(0)
        await #expect {
            try await RedirectFollower(limit: 5).follow(HTTPRequest(url: Self.url("/a"))) { _ in
                sent.withLock { $0 += 1 }
                withUnsafeCurrentTask { $0?.cancel() }
                return HTTPResponse(status: 302, headers: ["Location": "/b"])
            }
        } throws: { error in
            isCRUDError(error) { if case .cancelled = $0 { true } else { false } }
        }
        #expect(sent.withLock { $0 } == 1)
    }

    // MARK: - Deadline

    @Test func everyLaterHopCarriesWhatIsLeftOfTheOneDeadline() async throws {
        let stubs = StubTransport()
        let deadlines = Mutex<[TimeInterval?]>([])
        stubs.on(nil, "/hop/:n") { request in
            deadlines.withLock { $0.append(request.request.deadline) }
            let left = Int(request.parameters["n"] ?? "") ?? 0
            return left == 0 ? .text("end") : .status(307, headers: ["Location": "/hop/\(left - 1)"])
        }
        _ = try await Self.follow(HTTPRequest(url: Self.url("/hop/2"), deadline: 30), through: stubs)
        let seen = deadlines.withLock { $0 }
        #expect(seen.count == 3)
        #expect(seen[0] == 30, "the first hop carries the request's deadline as it is")
        #expect(seen.dropFirst().allSatisfy { ($0 ?? 0) > 0 && ($0 ?? 31) < 30 })
        #expect((seen[2] ?? 31) <= (seen[1] ?? 0))

        let none = StubTransport()
        none.on(nil, "/hop/:n") { request in
            #expect(request.request.deadline == nil)
            let left = Int(request.parameters["n"] ?? "") ?? 0
            return left == 0 ? .text("end") : .status(302, headers: ["Location": "/hop/0"])
        }
        _ = try await Self.follow(HTTPRequest(url: Self.url("/hop/1")), through: none)
    }

    @Test func aDeadlineSpentOnEarlierHopsEndsTheChainWithTheRequestsFigure() async throws {
        let sent = Mutex(0)
        await #expect {
            try await RedirectFollower(limit: 5).follow(HTTPRequest(url: Self.url("/a"), deadline: 0.01)) { _ in
                sent.withLock { $0 += 1 }
                try await Task.sleep(for: .milliseconds(30))  // the hop itself spends the deadline
                return HTTPResponse(status: 302, headers: ["Location": "/b"])
            }
        } throws: { error in
            isCRUDError(error) { $0.timeout == .deadline(0.01) }
        }
        #expect(sent.withLock { $0 } == 1, "no hop is sent once the deadline is spent")

        // A later hop that runs out (its transport says so with what it was given) names the request's deadline.
        await #expect {
            try await RedirectFollower(limit: 5).follow(HTTPRequest(url: Self.url("/a"), deadline: 30)) { hop in
                guard hop.url.path == "/b" else { return HTTPResponse(status: 302, headers: ["Location": "/b"]) }
                throw CRUDError.timedOut(.deadline(hop.deadline ?? 0))
            }
        } throws: { error in
            isCRUDError(error) { $0.timeout == .deadline(30) }
        }
    }

    // MARK: - Cookies per hop

    @Test func everyHopsSetCookieIsKeptUnderTheURLThatAnsweredIt() async throws {
        let stubs = StubTransport()
        stubs.on(nil, "/**") { .text($0.request.headers["Cookie"] ?? "") }
        stubs.on(.get, "/login", .status(302, headers: ["Location": "/home", "Set-Cookie": "session=abc; Path=/"]))
        stubs.on(.get, "/admin/go", .status(302, headers: ["Location": "/home", "Set-Cookie": "admin=1"]))
        let jar = CookieJar()
        let response = try await Self.follow(HTTPRequest(url: Self.url("/login")), through: stubs, jar: jar)
        #expect(Self.text(response) == "session=abc", "the cookie set by the 302 went to the next hop")
        #expect(jar.cookieHeader(for: Self.url("/anything")) == "session=abc")

        // A cookie without Path, set by /admin/go, is kept under /admin (the path of the URL that answered).
        _ = try await Self.follow(HTTPRequest(url: Self.url("/admin/go")), through: stubs, jar: jar)
        #expect(jar.cookieHeader(for: Self.url("/admin/x")) == "admin=1; session=abc")
        #expect(jar.cookieHeader(for: Self.url("/home")) == "session=abc")
    }

    @Test func theJarsCookieIsChosenAgainForEachHopOnTheSameOrigin() async throws {
        let jar = CookieJar()
        jar.store(setCookieHeaders: ["a=1; Path=/"], for: Self.url("/"))
        jar.store(setCookieHeaders: ["deep=2; Path=/deep"], for: Self.url("/deep/"))
        let stubs = Self.stubs(location: "/deep/landing")
        stubs.on(nil, "/deep/landing") { .text($0.request.headers["Cookie"] ?? "") }
        var request = HTTPRequest(url: Self.url("/to/302"))
        request.headers["Cookie"] = jar.cookieHeader(for: request.url)
        let response = try await RedirectFollower(limit: 5, jar: jar, cookieFromJar: true).follow(request) {
            try await stubs.send($0)
        }
        #expect(Self.text(response) == "deep=2; a=1", "the hop to /deep carried \(Self.text(response))")
    }

    /// The jar matches hosts, not ports or schemes: a hop to another origin (another port of the same host
    /// included) carries none of its cookies, nor the caller's.
    @Test(arguments: [
        "http://api.example.com:8080/landing", "https://api.example.com/landing", "http://o.example.com/landing",
    ])
    func aHopToAnotherOriginCarriesNoCookie(location: String) async throws {
        let jar = CookieJar()
        jar.store(setCookieHeaders: ["a=1; Path=/"], for: Self.url("/"))
        jar.store(setCookieHeaders: ["b=2; Path=/"], for: Self.url("/", "http://o.example.com"))
        for own in [nil, "own=1"] as [String?] {
            let stubs = Self.stubs(location: location, headers: ["Set-Cookie": "set=3; Path=/"])
            stubs.on(nil, "/landing") { .text($0.request.headers["Cookie"] ?? "none") }
            var request = HTTPRequest(url: Self.url("/to/302"))
            request.headers["Cookie"] = own ?? jar.cookieHeader(for: request.url)
            let response = try await RedirectFollower(limit: 5, jar: jar, cookieFromJar: own == nil).follow(request) {
                try await stubs.send($0)
            }
            #expect(Self.text(response) == "none", "\(location) got \(Self.text(response))")
        }
        #expect(jar.cookieHeader(for: Self.url("/x")) == "a=1; set=3", "the 302's Set-Cookie was not kept")
    }

    @Test func theCallersCookieStaysOnTheSameOrigin() async throws {
        let stubs = Self.stubs(location: "/landing")
        stubs.on(nil, "/landing") { .text($0.request.headers["Cookie"] ?? "") }
        let response = try await Self.follow(
            HTTPRequest(url: Self.url("/to/302"), headers: ["Cookie": "own=1"]), through: stubs, jar: CookieJar())
        #expect(Self.text(response) == "own=1")
    }

    // MARK: - Through an API

    @Test func anAPIFollowsRedirectsAtTheEndOfItsChainKeepingEachHopsCookies() async throws {
        let stubs = StubTransport()
        stubs.on(nil, "/**") { .text($0.request.headers["Cookie"] ?? "none") }
        stubs.on(.get, "/login", .status(302, headers: ["Location": "/home", "Set-Cookie": "session=abc; Path=/"]))
        stubs.on(nil, "/loop", .status(302, headers: ["Location": "/loop"]))
        let api = API(configuration: APIConfiguration(baseURL: Self.url(""), transport: stubs, maximumRedirects: 2))
        let home = try await api.get("login")
        #expect(Self.text(home) == "session=abc")
        #expect(home.url == Self.url("/home"))
        #expect(try await api.get("me").body == Data("session=abc".utf8))
        await #expect {
            try await api.get("loop")
        } throws: { error in
            isCRUDError(error) { if case .tooManyRedirects(limit: 2) = $0 { true } else { false } }
        }
        #expect(stubs.recorder.count(nil, "/loop") == 3)
        let strict = api.with { $0.maximumRedirects = 0 }
        await #expect(throws: CRUDError.self) { try await strict.get("login") }
    }
}
