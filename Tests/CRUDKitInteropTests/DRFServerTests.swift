import CRUDKit
import Foundation
import Testing

/// The guard: when `CRUDKIT_DRF_URL` is set, the server must answer there, or this fails with a plain message
/// (and so does CI, whose `.ci/run` sets the variable).
@Suite("DRF interop: the server answers", DRFServer.enabled)
struct DRFServerTests {
    @Test func apiRootListsTheRoutersEndpoints() async throws {
        let base = try DRFServer.baseURL()
        let api = API(baseURL: base, conventions: .djangoREST).with { $0.timeout = 10 }
        let root: JSON
        do {
            root = try await api.get("", as: JSON.self)
        } catch {
            Issue.record(
                error,
                Comment(
                    rawValue: "CRUDKIT_DRF_URL is \(base.absoluteString) but the DRF server does not answer "
                        + "there; start it with .ci/interop-server.sh start"))
            throw error
        }
        #expect(root["people"].string == base.absoluteString + "/people/")
        #expect(root["secure-people"].string == base.absoluteString + "/secure-people/")
    }

    @Test func tokenIsTheFortyHexKeyTheScriptExports() throws {
        let token = try DRFServer.requireToken()
        #expect(token.count == 40)
        #expect(token.allSatisfy { $0.isHexDigit })
    }
}
