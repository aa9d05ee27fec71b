import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

extension NetworkTests {
    /// A header or query parameter named `…-Key` carries a key: Azure API Management's `Ocp-Apim-Subscription-Key`,
    /// Azure Functions' `X-Functions-Key`, Cloudflare's `X-Auth-Key`, a plain `X-Secret-Key`, Google's `?key=` and
    /// Azure's SAS `?sig=`. Before, only names ending in `apikey`, `accesskey` or `privatekey` counted, so these
    /// followed a redirect to another host and were shown in logs and error descriptions.
    @Suite struct KeyHeaderTests {
        static let keyHeaders = [
            "Ocp-Apim-Subscription-Key", "X-Functions-Key", "X-Auth-Key", "X-Secret-Key", "X-Master-Key",
            "X-Admin-Key", "X-Signing-Key", "X-License-Key", "x-client-key", "Subscription-Key",
        ]

        @Test func keyHeadersStayWithTheirOriginThroughTheTransport() async throws {
            let second = LoopbackServer(synchronousHandler: { _ in .response(HTTPResponse(status: 200)) })
            try second.start()
            defer { second.stop() }
            let landing = "http://127.0.0.1:\(second.port)/landing"
            let first = LoopbackServer(synchronousHandler: { _ in
                .response(HTTPResponse(status: 302, headers: ["Location": landing]))
            })
            try first.start()
            defer { first.stop() }
            var headers: HTTPHeaders = ["X-Trace": "kept", "Idempotency-Key": "idem-1", "X-Public-Key": "pk-1"]
            for name in Self.keyHeaders { headers[name] = "k3y-s3cret-\(name)" }
            let request = HTTPRequest(
                url: try #require(URL(string: "http://127.0.0.1:\(first.port)/hop")), headers: headers)

            _ = try await API(configuration: APIConfiguration(baseURL: nil)).send(request)

            let sent = first.requests.first?.headers["Ocp-Apim-Subscription-Key"]
            #expect(sent == "k3y-s3cret-Ocp-Apim-Subscription-Key")
            let next = try #require(second.requests.first)
            for name in Self.keyHeaders {
                #expect(next.headers[name] == nil, "\(name) went to another origin")
            }
            #expect(next.headers["X-Trace"] == "kept")
            #expect(next.headers["Idempotency-Key"] == "idem-1")  // not a credential
            #expect(next.headers["X-Public-Key"] == "pk-1")
        }

        @Test func keysAreHiddenInLogsAndDescriptions() throws {
            let redaction = Redaction.standard
            for name in Self.keyHeaders + ["key", "api_key", "sig", "signing_key", "subscription-key"] {
                #expect(redaction.namesSecret(name), "\(name)")
            }
            for name in ["Idempotency-Key", "X-Idempotency-Key", "public_key", "X-Public-Key", "keyword", "id"] {
                #expect(!redaction.namesSecret(name), "\(name)")
            }
            let url = try #require(
                URL(string: "https://maps.example.com/geo?address=Main+St&key=AIzaSyS3cret&sig=Sas5ecret&sv=2024"))
            let shown = redaction.redact(url)
            #expect(!shown.contains("AIzaSyS3cret"))
            #expect(!shown.contains("Sas5ecret"))
            #expect(shown.contains("address=Main+St"))
            #expect(shown.contains("sv=2024"))
            let headers = redaction.redact(["Ocp-Apim-Subscription-Key": "0123456789abcdef", "Idempotency-Key": "idem"])
            #expect(headers["Ocp-Apim-Subscription-Key"] == Redaction.placeholder)
            #expect(headers["Idempotency-Key"] == "idem")
        }
    }
}
