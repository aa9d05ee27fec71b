import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// Credentials and error descriptions against hostile inputs: odd user info, echoed secrets, huge error bodies.
@Suite struct CredentialsHostileTests {
    private struct Guest: CRUDModel, Codable {
        static let path = "people"
        var id: Int?
    }

    private static func failing(_ body: String, status: Int = 422) -> StubTransport {
        StubTransport().on(.get, "people") { _ in .json(text: body, status: status) }
    }

    private static func error(_ api: API) async -> CRUDError? {
        do {
            _ = try await Guest.using(api).list()
            return nil
        } catch {
            return error as? CRUDError
        }
    }

    private static func texts(_ error: CRUDError?) -> [String] {
        guard let error else { return [] }
        var dumped = ""
        dump(error, to: &dumped)
        return ["\(error)", String(reflecting: error), error.localizedDescription, dumped]
    }

    @Test func percentEncodedUserInfoIsDecodedAndShownNowhere() async throws {
        let transport = Self.failing("{}", status: 200)
        let api = API(baseURL: URL(string: "https://ad%40a:p%3As%C3%A9cr%20t@api.example.com/v1"), transport: transport)
        _ = try? await Guest.using(api).list()
        let expected = "Basic " + Data("ad@a:p:sécr t".utf8).base64EncodedString()
        #expect(transport.recorder.last?.header("Authorization") == expected)
        var dumped = ""
        dump(api, to: &dumped)
        for text in ["\(api.configuration)", dumped, api.configuration.baseURL?.absoluteString ?? ""] {
            #expect(!text.contains("p%3As"))
            #expect(!text.contains("sécr"))
        }
    }

    @Test func echoedSecretsAreHiddenInEveryRendering() async {
        let body = #"""
            {"detail": "token tok-s3cret-77 rejected; password pw-s3cret-88",
             "errors": {"password": ["is too short", "pw-s3cret-88"], "tok-s3cret-77": ["x"],
                        "refresh_token": ["rt-s3cret-99"]}}
            """#
        let basic = API(
            baseURL: URL(string: "https://api.example.com"), credentials: .basic(user: "ada", password: "pw-s3cret-88"),
            transport: Self.failing(body))
        let token = API(
            baseURL: URL(string: "https://api.example.com"), credentials: .bearer("tok-s3cret-77"),
            transport: Self.failing(body))
        for text in Self.texts(await Self.error(basic)) {
            #expect(!text.contains("pw-s3cret-88"), "\(text)")
        }
        for text in Self.texts(await Self.error(token)) {
            #expect(!text.contains("tok-s3cret-77"), "\(text)")
            #expect(!text.contains("rt-s3cret-99"), "\(text)")
        }
    }

    @Test func tenThousandFieldErrorsAndAMegabyteMessageStayBounded() async {
        var fields: [String] = []
        for index in 0..<10_000 { fields.append(#""field\#(index)": ["bad \#(index)"]"#) }
        fields.append(#""huge": [""# + String(repeating: "m", count: 1 << 20) + #""]"#)
        let api = API(
            baseURL: URL(string: "https://api.example.com"),
            transport: Self.failing("{" + fields.joined(separator: ",") + "}"))
        let error = await Self.error(api)
        let clock = ContinuousClock()
        var lengths: [Int] = []
        let elapsed = clock.measure { lengths = [error?.description.count ?? 0, error?.debugDescription.count ?? 0] }
        #expect(lengths.allSatisfy { $0 > 0 && $0 < 20_000 }, "\(lengths)")
        print("description of 10,000 fields and 1 MB: \(elapsed), \(lengths)")
    }

    @Test func basicFromUserInfoIsNotSentAcrossARedirectToAnotherOrigin() async throws {
        let other = LoopbackServer { _ in .response(HTTPResponse(status: 200, body: Data("[]".utf8))) }
        try other.start()
        defer { other.stop() }
        let target = other.baseURL.appendingPathComponent("people").absoluteString
        let first = LoopbackServer { _ in .response(HTTPResponse(status: 302, headers: ["Location": target])) }
        try first.start()
        defer { first.stop() }
        var parts = try #require(URLComponents(url: first.baseURL, resolvingAgainstBaseURL: false))
        parts.user = "ada"
        parts.password = "pw-s3cret"
        let api = API(baseURL: parts.url, transport: URLSessionTransport())
        _ = try? await Guest.using(api).list()
        #expect(first.requests.first?.headers["Authorization"] != nil)
        #expect(other.requests.allSatisfy { $0.headers["Authorization"] == nil })
    }
}
