import CRUDKit
import Foundation
import Testing

/// The code samples of README's "Reliability" section, compiled so they cannot rot.
@Suite struct ReliabilityReadmeSamples {
    /// README: "Refuse answers that are not JSON, and hide an API key in logs".
    static func strictAPI() -> API {
        let api = API(
            configuration: APIConfiguration(
                baseURL: URL(string: "https://api.example.com/v1")!,
                redaction: Redaction(queryParameters: ["api_key"])
            )
        ).with {
            $0.middleware.insert(RetryMiddleware(policy: .standard))  // GET, HEAD, PUT, DELETE, and POSTs with a key
            $0.middleware.insert(IdempotencyKeyMiddleware())
            $0.middleware.insert(
                .validate { response in
                    guard response.mediaType == "application/json" else {
                        throw CRUDError.validation(message: "expected JSON", response: response)
                    }
                }, after: .validation)
        }
        return api
    }

    @Test func strictAPIIsConfiguredAsDescribed() throws {
        let api = Self.strictAPI()
        #expect(api.configuration.middleware.names.filter { $0 == "validate" }.count == 1)
        #expect(api.configuration.middleware.contains { $0 is IdempotencyKeyMiddleware })
        let request = HTTPRequest(url: try #require(URL(string: "https://api.example.com/v1/x?api_key=k")))
        #expect(request.cURLDescription(redacting: api.configuration.redaction).contains("api_key=REDACTED"))
    }
}
