import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// A fractional idle timeout is enforced by the transport's own watchdog (URLSession on Linux counts whole
    /// seconds); the watchdog must restart whenever bytes arrive, exactly as an idle timeout should.
    @Suite struct IdleWatchdogTests {
        /// The gap is a sixth of the idle time (as in the adapter's test), so a loaded machine that delays a piece by
        /// a second does not end the body; with 0.2 s gaps under 0.5 s, a 0.3 s delay did.
        @Test func aSlowButSteadyBodyLongerThanTheIdleTimeoutArrivesWhole() async throws {
            // Given: twelve pieces 0.25 s apart (about 3 s in all) and an idle timeout of 1.5 s
            let pieces = (0..<12).map { Data(repeating: UInt8($0), count: 500) }
            let server = LoopbackServer(synchronousHandler: { _ in
                .stream(LoopbackStream(chunks: pieces, delay: 0.25))
            })
            try server.start()
            defer { server.stop() }
            let request = HTTPRequest(url: server.baseURL.appendingPathComponent("steady"), timeout: 1.5)

            // When
            let response = try await URLSessionTransport().send(request)

            // Then
            #expect(response.status == 200)
            #expect(response.body == pieces.reduce(Data(), +))
        }

        /// A timer counting whole seconds would fire after 1 s at the earliest, so "under 1 s" tells the two apart
        /// and leaves 0.6 s for a loaded machine (the 0.8 s bound of before left 0.4 s). The pause is 5 s, so the
        /// second piece never ends the wait before such a timer would.
        @Test func aPauseLongerThanTheIdleTimeoutFailsAsIdle() async throws {
            // Given: two pieces 5 s apart and an idle timeout of 0.4 s
            let server = LoopbackServer(synchronousHandler: { _ in
                .stream(LoopbackStream(chunks: [Data(count: 10), Data(count: 10)], delay: 5))
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
            #expect(elapsed >= .milliseconds(400), "an idle timeout of 0.4 s fired early")
            #expect(elapsed < .seconds(1), "an idle timeout of 0.4 s must not wait for the next whole second")
        }
    }
}
