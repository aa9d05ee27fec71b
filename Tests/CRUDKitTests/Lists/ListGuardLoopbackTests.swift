import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkTests {
    /// The list guard over real HTTP: Vapor's `{"items", "metadata"}` served by a loopback server is walked 24 of
    /// 24 with the default pagination, or fails loudly, never returning 10 silently (issue 25, item 1).
    @Suite struct ListGuardLoopbackTests {
        @Test func fluentPagesOverHTTPAreWalkedWholeOrFailLoudly() async throws {
            let backend = numberedBackend(.vapor, count: 24)
            let server = LoopbackServer(backend: backend)
            try server.start()
            defer { server.stop() }
            let transport = URLSessionTransport()

            let automatic = numberedScope(transport, base: server.baseURL)
            let everyone = try await automatic.all().collect()
            let envelope = numberedScope(
                transport, pagination: .envelope(items: "items", next: nil, total: "metadata.total"),
                base: server.baseURL)
            let (items, found) = await shortfall(of: envelope.all())

            #expect(everyone.map(\.n) == Array(1...24))
            #expect(items == Array(1...10))
            #expect(found?.received == 10 && found?.declaredTotal == 24)
            #expect(found?.suggestion.contains("Pagination.vapor") == true)
        }

        @Test func laravelPagesOverHTTPAreWalkedWhole() async throws {
            let backend = numberedBackend(.laravel, count: 25)
            let server = LoopbackServer(backend: backend)
            try server.start()
            defer { server.stop() }
            let transport = URLSessionTransport()

            for conventions in [APIConventions.standard, .laravel] {
                let scope = numberedScope(transport, conventions: conventions, base: server.baseURL)
                #expect(try await scope.all().collect().map(\.n) == Array(1...25), "\(conventions.name)")
            }
        }
    }
}
