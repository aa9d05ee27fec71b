import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// A fractional idle timeout is enforced by the transport's own watchdog (URLSession on Linux counts whole
    /// seconds); the watchdog must restart whenever bytes arrive, exactly as an idle timeout should.
    @Suite struct IdleWatchdogTests {
        @Test func aSlowButSteadyBodyLongerThanTheIdleTimeoutArrivesWhole() async throws {
            // Given: six pieces 0.2 s apart (about 1 s in all) and an idle timeout of 0.5 s
            let pieces = (0..<6).map { Data(repeating: UInt8($0), count: 500) }
            let server = LoopbackServer(synchronousHandler: { _ in
                .stream(LoopbackStream(chunks: pieces, delay: 0.2))
            })
            try server.start()
            defer { server.stop() }
            let request = HTTPRequest(url: server.baseURL.appendingPathComponent("steady"), timeout: 0.5)

            // When
            let response = try await URLSessionTransport().send(request)

            // Then
            #expect(response.status == 200)
            #expect(response.body == pieces.reduce(Data(), +))
        }

        @Test func aPauseLongerThanTheIdleTimeoutFailsAsIdle() async throws {
            // Given: two pieces 1 s apart and an idle timeout of 0.4 s
            let server = LoopbackServer(synchronousHandler: { _ in
                .stream(LoopbackStream(chunks: [Data(count: 10), Data(count: 10)], delay: 1))
            })
            try server.start()
            defer { server.stop() }
            let request = HTTPRequest(url: server.baseURL.appendingPathComponent("pause"), timeout: 0.4)

            // When
            let clock = ContinuousClock()
            let started = clock.now
            let error = await #expect(throws: CRUDError.self) { try await URLSessionTransport().send(request) }
            let elapsed = clock.now - started

            // Then
            guard case .timedOut(.idle(let seconds)) = error else {
                Issue.record("expected an idle timeout, got \(String(describing: error))")
                return
            }
            #expect(seconds == 0.4)
            #expect(elapsed < .milliseconds(800), "an idle timeout of 0.4 s must not wait for the next whole second")
        }
    }
}
