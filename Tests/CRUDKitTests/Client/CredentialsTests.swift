import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// `Credentials`: Basic next to bearer and the preset's token, redacted, and user info in a base URL.
@Suite struct CredentialsTests {
    private struct Guest: CRUDModel, Codable {
        static let path = "people"
        var id: Int?
    }

    private static func answering() -> StubTransport {
        StubTransport().on(.get, "people") { _ in .json(text: "[]") }
    }

    @Test func basicSendsTheRFC7617Header() async throws {
        let transport = Self.answering()
        let api = API(
            baseURL: URL(string: "https://api.example.com"), conventions: .djangoREST,
            credentials: .basic(user: "ada", password: "s3cret:pw"), transport: transport)
        _ = try await Guest.using(api).list()
        // base64("ada:s3cret:pw")
        #expect(transport.recorder.last?.header("Authorization") == "Basic YWRhOnMzY3JldDpwdw==")
    }

    @Test func bearerAndTokenFollowTheirSchemes() {
        #expect(Credentials.bearer("k").authorization(.djangoREST) == "Bearer k")
        #expect(Credentials.token("k").authorization(.djangoREST) == "Token k")
        #expect(Credentials.token("k").authorization(.standard) == "Bearer k")
    }

    @Test func descriptionsNeverShowTheSecret() {
        let credentials = Credentials.basic(user: "ada", password: "s3cret")
        #expect(!"\(credentials)".contains("s3cret"))
        #expect(!String(reflecting: credentials).contains("s3cret"))
        var dumped = ""
        dump(credentials, to: &dumped)
        #expect(!dumped.contains("s3cret"))
        let api = API(baseURL: URL(string: "https://api.example.com"), credentials: credentials)
        #expect(!"\(api.configuration)".contains("s3cret"))
        #expect(!"\(api.configuration)".contains(Data("ada:s3cret".utf8).base64EncodedString()))
    }

    @Test func userInfoInTheBaseURLIsSentAsBasicAndLeavesTheURL() async throws {
        let transport = Self.answering()
        let api = API(baseURL: URL(string: "https://ada:p%40ss@api.example.com/v1"), transport: transport)
        #expect(api.configuration.baseURL?.absoluteString == "https://api.example.com/v1")
        _ = try await Guest.using(api).list()
        #expect(
            transport.recorder.last?.header("Authorization") == "Basic \(Data("ada:p@ss".utf8).base64EncodedString())")
    }

    @Test func explicitCredentialsWinOverUserInfo() async throws {
        let transport = Self.answering()
        let api = API(baseURL: URL(string: "https://ada:pw@api.example.com"), token: "k", transport: transport)
        _ = try await Guest.using(api).list()
        #expect(transport.recorder.last?.header("Authorization") == "Bearer k")
    }
}
