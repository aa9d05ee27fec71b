import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// A write the server redirects (Django's `APPEND_SLASH` answers `POST /people` with 301) fails with advice that
/// names the setting that fixes it, not only "The server answered 301" (issue 15, item 14).
@Suite struct RedirectedWriteAdviceTests {
    private static let base = URL(string: "https://api.example.com/v1")!

    @Test func aPostWithoutTheSlashSaysToSetTheTrailingSlash() async throws {
        // Given a DRF server and an API that does not add the slash
        let server = makePeopleBackend(.drf)
        let people = Member.using(API(baseURL: Self.base, transport: server))

        // When a person is created
        let error = await #expect(throws: CRUDError.self) {
            try await people.create(Member(firstName: "Ada", lastName: "Lovelace"))
        }

        // Then the error says what to change
        let message = try #require(error).localizedDescription
        #expect(message.contains("301"))
        #expect(message.contains("trailing slash"))
        #expect(message.contains(".always"))
        #expect(message.contains(".djangoREST"))
        #expect(error?.status == 301)
        #expect(error?.recoverySuggestion?.contains("/v1/people/") == true)
        #expect(server.count(in: "people") == 0)
    }

    @Test func aRedirectThatDropsTheSlashSaysToSetNever() async throws {
        let redirect = HTTPResponse(
            status: 308, headers: ["Location": "/v1/people/1"], body: Data(),
            url: URL(string: "https://api.example.com/v1/people/1/"))

        let advice = CRUDError.httpStatus(redirect).recoverySuggestion

        #expect(advice?.contains("without a trailing slash") == true)
        #expect(advice?.contains(".never") == true)
        #expect(CRUDError.httpStatus(redirect).localizedDescription.contains(".never"))
    }

    @Test func anotherRedirectNamesTheAddressWithoutItsQuery() async throws {
        let redirect = HTTPResponse(
            status: 302, headers: ["Location": "https://login.example.com/sso?token=secret"], body: Data(),
            url: URL(string: "https://api.example.com/v1/people"))

        let advice = try #require(CRUDError.httpStatus(redirect).recoverySuggestion)

        #expect(advice.contains("https://login.example.com/sso"))
        #expect(!advice.contains("secret"))
        #expect(!CRUDError.httpStatus(redirect).localizedDescription.contains("secret"))
    }

    @Test func otherFailuresHaveNoRedirectAdvice() {
        let notFound = HTTPResponse(status: 404, headers: [:], body: Data(), url: Self.base)
        let notModified = HTTPResponse(
            status: 304, headers: ["Location": "/x"], body: Data(), url: Self.base)

        #expect(CRUDError.httpStatus(notFound).recoverySuggestion == nil)
        #expect(CRUDError.httpStatus(notModified).recoverySuggestion == nil)
        #expect(CRUDError.cancelled.recoverySuggestion == nil)
        #expect(!CRUDError.httpStatus(notFound).localizedDescription.contains("redirect"))
    }
}
