import CRUDKit
import CRUDKitObservability
import CRUDKitTesting
import Foundation
import Testing

/// Secrets planted in every place a request carries them (a bearer token, an `api_key` query value on the API and on
/// the call, a password in the base URL) reach the server but no log line, metric label or span.
@Suite struct PlantedSecretsTests {
    @Test func noSecretReachesALogLineALabelOrASpan() async throws {
        let backend = try Backend()
        let recorders = Recorders()
        let api = recorders.observing(
            backend.api(user: "ada", token: Planted.token, retryPolicy: retryAtOnce, query: ["api_key": Planted.apiKey])
        )
        _ = try await Person.using(api).read(id: 1234)
        let _: Person = try await api.get("flaky/1234", query: ["password": Planted.password, "q": "ok"])
        let _: Person = try await api.get("moved", query: ["token": Planted.token])
        await #expect(throws: CRUDError.self) {
            let _: Person = try await api.get("missing", query: ["api_key": Planted.apiKey])
        }
        await #expect(throws: CRUDError.self) {
            let _: Person = try await api.get("reset", query: ["access_token": Planted.token])
        }
        // The secrets were in play: the server received them.
        let wire = backend.server.requests.map { String(decoding: $0.raw, as: UTF8.self) }.joined()
        #expect(wire.contains(Planted.token))
        #expect(wire.contains(Planted.apiKey))
        let recorded = recorders.everything
        #expect(recorders.logLines.count >= 10)
        #expect(recorders.metricLabels.count >= 6)
        #expect(recorders.spanTexts.count == 5)
        for secret in Planted.all {
            let leaks = recorded.filter { $0.contains(secret) }
            #expect(leaks.isEmpty, "\(secret) leaked: \(leaks)")
        }
        // What is shown instead: the redacted URL.
        #expect(recorded.contains { $0.contains("api_key=") })
    }
}
