@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// The shortcuts the request path takes for the usual case give exactly what the general code gives.
@Suite struct HotPathEquivalenceTests {
    /// What `PathBuilder.url(path:)` made of a relative path before it had a shortcut for plain paths: split on `/`
    /// (empty parts dropped), each segment percent-encoded, the trailing-slash rule applied.
    static func reference(_ base: String, _ path: String, _ rule: TrailingSlash, query: String? = nil) -> String {
        var text = base
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        var baseQuery: String?
        if let question = text.firstIndex(of: "?") {
            let tail = String(text[text.index(after: question)...])
            baseQuery = tail.isEmpty ? nil : tail
            text = String(text[..<question])
        }
        let baseEndsWithSlash = text.hasSuffix("/")
        while text.hasSuffix("/") { text.removeLast() }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let slash: Bool
        switch rule {
        case .always: slash = true
        case .never: slash = false
        case .asGiven: slash = segments.isEmpty ? (path.isEmpty ? baseEndsWithSlash : true) : path.hasSuffix("/")
        }
        for segment in segments { text += "/" + PercentEncoding.segment(segment) }
        if slash && !text.hasSuffix("/") { text += "/" }
        let queries = [baseQuery, query].compactMap { $0 }
        if !queries.isEmpty { text += "?" + queries.joined(separator: "&") }
        return text
    }

    static let paths = [
        "people", "people/12", "people/12/pets", "a.b/c~d_e-f", "v2/people.json", "...", "a/.../b", "x/.a/b.",
        ".", "..", "a/./b", "a/../b", "/people", "people/", "people//12", "", "/", "a b", "Zoë/1", "a%2Fb", "a?b",
        "a#b", "a+b", "people/./", "./people", "../people", "p/..", "p/.",
    ]

    @Test(arguments: ["https://x.test/v1", "https://x.test/v1/", "https://x.test", "https://x.test/v1?key=k"])
    func plainPathsGiveWhatSegmentByEncodingGives(base: String) throws {
        for rule in [TrailingSlash.asGiven, .always, .never] {
            let builder = PathBuilder(baseURL: URL(string: base)!, trailingSlash: rule)
            for path in Self.paths {
                #expect(
                    try builder.url(path: path).absoluteString == Self.reference(base, path, rule),
                    "\(base) + \(path.debugDescription), \(rule)")
                #expect(
                    try builder.url(path: path, query: ["q": "1 2"]).absoluteString
                        == Self.reference(base, path, rule, query: "q=1%202"),
                    "\(base) + \(path.debugDescription) with a query, \(rule)")
            }
        }
    }

    @Test func percentEncodingLeavesUnreservedTextAsIsAndEscapesTheRest() {
        #expect(FormParameters.percentEncode("") == "")
        #expect(FormParameters.percentEncode("Az09-._~") == "Az09-._~")
        #expect(FormParameters.percentEncode("a b") == "a%20b")
        #expect(FormParameters.percentEncode("a/b?c=d&e") == "a%2Fb%3Fc%3Dd%26e")
        #expect(FormParameters.percentEncode("Zoë") == "Zo%C3%AB")
        #expect(FormParameters.percentEncode("100%") == "100%25")
    }

    @Test func anEmptyJarAndAFilledOneAnswerAsBefore() {
        let jar = CookieJar()
        let url = URL(string: "https://x.test/people")!
        #expect(jar.cookieHeader(for: url) == nil)
        jar.store(setCookieHeaders: ["session=abc; Path=/"], for: url)
        #expect(jar.cookieHeader(for: url) == "session=abc")
        #expect(jar.cookieHeader(for: URL(string: "https://other.test/people")!) == nil)
    }

    /// The retry stage marks the API's secret headers on every request sent: the API's list itself when the
    /// request marked none, the union when it marked its own.
    @Test func sentRequestsCarryTheAPIsSecretHeaderNames() async throws {
        let recorder = RequestRecorder()
        let transport = RecordingTransport(StubTransport().on(nil, "**", .json(text: "{}")), recorder: recorder)
        let redaction = Redaction(headers: ["X-Signature"])
        let api = API(configuration: APIConfiguration(baseURL: URL(string: "https://x.test")!, transport: transport))
            .with { $0.redaction = redaction }
        _ = try await api.get("people")
        #expect(recorder.last?.request.sensitiveHeaderNames == redaction.headerNames)

        var own = HTTPRequest(url: URL(string: "https://x.test/people")!)
        own.sensitiveHeaderNames = ["x-own"]
        _ = try await api.send(own)
        #expect(recorder.last?.request.sensitiveHeaderNames == redaction.headerNames.union(["x-own"]))
    }
}
