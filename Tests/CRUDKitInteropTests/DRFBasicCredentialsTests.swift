import CRUDKit
import Foundation
import Testing

/// `/secure/people/` with HTTP Basic credentials: the interop user `interop`, whose password is its token key
/// (`manage.py interop_token` sets both).
@Suite("DRF interop: Basic credentials", DRFServer.enabled)
struct DRFBasicCredentialsTests {
    @Test func basicCredentialsLogIn() async throws {
        let key = try DRFServer.requireToken()
        let text = try #require(DRFServer.urlText)
        let base = try #require(URL(string: text))
        let api = API(
            baseURL: base, conventions: .djangoREST, credentials: .basic(user: "interop", password: key),
            transport: URLSessionTransport())
        let made = try await BasicSecurePerson.using(api).create(
            BasicSecurePerson(firstName: "Basic", lastName: "Credentials-\(UUID().uuidString.prefix(8))"))
        let id = try #require(made.id)
        let okay: Okay = try await BasicSecurePerson.using(api).delete(id: id)
        #expect(okay == Okay())
        #expect(!"\(api.configuration)".contains(key))
    }

    @Test func aWrongPasswordIsA401() async throws {
        let text = try #require(DRFServer.urlText)
        let base = try #require(URL(string: text))
        let api = API(
            baseURL: base, conventions: .djangoREST, credentials: .basic(user: "interop", password: "wrong"),
            transport: URLSessionTransport())
        let error = await #expect(throws: CRUDError.self) {
            let _: [BasicSecurePerson] = try await BasicSecurePerson.using(api).list()
        }
        #expect(error?.status == 401)
        #expect(error?.serverMessage == "Invalid username/password.")
    }

    @Test func userInfoInTheBaseURLIsSentAsBasic() async throws {
        let key = try DRFServer.requireToken()
        let text = try #require(DRFServer.urlText)
        var parts = try #require(URLComponents(string: text))
        parts.user = "interop"
        parts.password = key
        let api = API(baseURL: parts.url, conventions: .djangoREST, transport: URLSessionTransport())
        let listed: [BasicSecurePerson] = try await BasicSecurePerson.using(api).list()
        #expect(listed.count >= 0)
        #expect(api.configuration.baseURL?.user == nil)
    }
}
