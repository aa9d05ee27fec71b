import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

/// `dump(_:)` — and a debugger's variables view or a logging tool that walks a value with `Mirror` — showed every
/// stored property: the API's token, a cookie jar's cookies, a transport's, a refresher's or a context's credential
/// headers. Values that hold secrets now reflect no children; their redacted description is what `dump` prints.
@Suite struct ReflectionRedactionTests {
    static func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    static let url = URL(string: "https://user:pw-s3cret@api.example.com/v1/people?token=tok-s3cret&page=2")!

    @Test func holdersOfCredentialsDumpNoSecret() async throws {
        let api = API(baseURL: Self.url, conventions: .djangoREST, token: "token-s3cret")
        let keyed = API(baseURL: Self.url, headers: ["X-API-Key": "key-s3cret"])
        let request = HTTPRequest(
            method: .post, url: Self.url, headers: ["Authorization": "Bearer bearer-s3cret"],
            body: .data(Data(#"{"password":"body-s3cret"}"#.utf8)))

        let jar = CookieJar()
        jar.store(setCookieHeaders: ["session=cookie-s3cret; Path=/"], for: URL(string: "https://api.example.com/")!)
        #expect(jar.cookieHeader(for: URL(string: "https://api.example.com/people")!) == "session=cookie-s3cret")
        let transport = URLSessionTransport()
        let jarred = api.with { $0.cookieJar = jar }

        var form = MultipartForm()
        form.append(name: "password", value: "form-s3cret")

        let refresher = TokenRefresher(token: "refresh-s3cret") { _ in "next-s3cret" }
        let middlewareContext = MiddlewareContext(api: api, request: request)

        let values: [(String, any Sendable)] = [
            ("API", api), ("API", keyed), ("API", jarred), ("CookieJar", jar), ("URLSessionTransport", transport),
            ("MultipartForm", form),
            ("TokenRefresher", refresher), ("MiddlewareContext", middlewareContext),
            ("ResponseCache", ResponseCache()), ("api.example.com/v1/people", request),
            (
                "answered 401",
                CRUDError.httpStatus(
                    HTTPResponse(status: 401, headers: ["Set-Cookie": "sid=sid-s3cret"], url: Self.url))
            ),
        ]
        for (name, value) in values {
            let text = Self.dumped(value)
            #expect(!text.contains("s3cret"), "dump shows a secret: \(text)")
            #expect(text.contains(name), "dump shows \(name) (the type, or the redacted description): \(text)")
        }
        _ = await refresher.currentToken
    }

    /// What `dump` prints for a value with a redacted description is that description: the status, host and path
    /// stay readable.
    @Test func dumpShowsTheRedactedDescription() {
        let response = HTTPResponse(
            status: 503, headers: ["Set-Cookie": "session=cookie-s3cret"], body: Data("busy".utf8), url: Self.url)
        let text = Self.dumped(CRUDError.httpStatus(response))
        #expect(!text.contains("s3cret"))
        #expect(text.contains("503") && text.contains("api.example.com/v1/people"), "\(text)")
        let headers = Self.dumped(HTTPHeaders([("Authorization", "Bearer s3cret-token"), ("Accept", "text/html")]))
        #expect(!headers.contains("s3cret") && headers.contains("Accept: text/html"), "\(headers)")
    }
}
