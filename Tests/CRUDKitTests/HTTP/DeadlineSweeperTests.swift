import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKitHTTP

extension NetworkTests {
    /// The one timer behind every deadline of a `URLSessionTransport`: each exchange is watched from the start of
    /// its task until it finishes; exchanges with different deadlines each end at their own, and nothing stays
    /// watched once they ended, by their deadline or by finishing.
    @Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct DeadlineSweeperTests {
        @Test func exchangesEndEachAtItsOwnDeadlineAndNothingStaysWatched() async throws {
            let server = LoopbackServer(synchronousHandler: { request in
                request.path.hasSuffix("fast")
                    ? .response(HTTPResponse(status: 200, body: Data("ok".utf8)))
                    : .stream(LoopbackStream(chunks: Array(repeating: Data("x".utf8), count: 60), delay: 0.2))
            })
            try server.start()
            defer { server.stop() }
            let transport = URLSessionTransport(configuration: .init(idleTimeout: 10))
            let clock = ContinuousClock()
            let started = clock.now
            // The latest first, so the sweeper's timer is armed again for each earlier one.
            let outcomes = try await withinSeconds(20) {
                try await withThrowingTaskGroup(of: (TimeInterval, String, Duration).self) { group in
                    for deadline in [1.5, 1.0, 0.5] {
                        group.addTask {
                            var request = HTTPRequest(url: server.baseURL.appendingPathComponent("slow"))
                            request.deadline = deadline
                            do {
                                _ = try await transport.send(request)
                                return (deadline, "finished", clock.now - started)
                            } catch let error as CRUDError {
                                return (deadline, "\(error)", clock.now - started)
                            }
                        }
                    }
                    for _ in 0..<20 {
                        group.addTask {
                            let response = try await transport.send(
                                HTTPRequest(url: server.baseURL.appendingPathComponent("fast"), deadline: 30))
                            return (0, "status \(response.status)", clock.now - started)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            let timedOut = outcomes.filter { $0.0 > 0 }.sorted { $0.2 < $1.2 }
            #expect(timedOut.map(\.0) == [0.5, 1.0, 1.5], "each ended in the order of its deadline: \(timedOut)")
            for (deadline, outcome, elapsed) in timedOut {
                #expect(outcome == "\(CRUDError.timedOut(.deadline(deadline)))")
                #expect(elapsed >= .milliseconds(Int(deadline * 1000)), "\(deadline) s ended after \(elapsed)")
            }
            #expect(outcomes.filter { $0.0 == 0 }.allSatisfy { $0.1 == "status 200" })
            #expect(transport.deadlines.count == 0)
        }

        /// A request without a deadline is not watched: the transport has no default of its own.
        @Test func noDeadlineIsNotWatched() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in .response(HTTPResponse(status: 200)) })
            try server.start()
            defer { server.stop() }
            let transport = URLSessionTransport()
            _ = try await transport.send(HTTPRequest(url: server.baseURL))
            #expect(transport.deadlines.count == 0)
        }
    }
}
