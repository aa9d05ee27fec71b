import CRUDKit
import CRUDKitAsyncHTTPClient
import CRUDKitTesting
import Foundation
import Testing

/// A listed person for README's "On Linux servers" sample.
private struct Person: CRUDModel, Codable, Equatable {
    static let path = "people"
    var id: Int?
    var name: String
}

/// README's "On Linux servers" sample, kept here so it compiles and runs with every change of the adapter.
@Suite struct ReadmeSampleTests {
    @Test(.timeLimit(.minutes(1))) func onLinuxServersSample() async throws {
        let backend = InMemoryBackend()
        backend.register("people")
        let server = LoopbackServer(backend: backend)
        try server.start()
        defer { server.stop() }

        // README: On Linux servers
        let transport = AsyncHTTPClientTransport()  // owns its HTTPClient; or (client: yours), redirects off
        let api = API(baseURL: server.baseURL, transport: transport)
        // …
        let made = try await Person.using(api).create(Person(name: "Ada"))
        let read = try await Person.using(api).read(id: made.id!)
        try await transport.shutdown()  // an owned client is shut down cleanly; a shared one never

        #expect(read == made)
        #expect(backend.count(in: "people") == 1)
    }
}
