import Foundation
import Testing

@testable import CRUDKit

/// A clock that never sleeps: `sleep` records the wait and moves time forward.
final class ManualClock: APIClock {
    private struct State {
        var now: Duration = .seconds(1000)
        var sleeps: [Duration] = []
    }
    private let state = Locked(State())
    let startDate: Date

    init(startDate: Date = Date(timeIntervalSince1970: 1_700_000_000)) { self.startDate = startDate }

    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func advance(_ duration: Duration) { state.withLock { $0.now += duration } }

    func now() -> Duration { state.withLock { $0.now } }

    func date() -> Date {
        let elapsed = state.withLock { $0.now } - .seconds(1000)
        return startDate.addingTimeInterval(elapsed.seconds)
    }

    func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock {
            $0.sleeps.append(duration)
            $0.now += duration
        }
    }
}

/// A clock whose `sleep` waits until the task is cancelled, and says when it started waiting.
final class BlockingClock: APIClock {
    let started: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() { (started, continuation) = AsyncStream.makeStream() }

    func now() -> Duration { .zero }
    func date() -> Date { Date(timeIntervalSince1970: 0) }
    func sleep(for duration: Duration) async throws {
        continuation.yield()
        try await Task.sleep(nanoseconds: 3_600_000_000_000)
    }
}

/// The model most tests decode.
struct StubPerson: Codable, Sendable, Hashable {
    var id: Int?
    var firstName: String
    var lastName: String
}

let testBase = URL(string: "https://api.example.com/v1")!

func jsonResponse(_ json: String, status: Int = 200, headers: HTTPHeaders = [:]) -> HTTPResponse {
    HTTPResponse(status: status, headers: headers.merging(["Content-Type": "application/json"]), body: Data(json.utf8))
}

extension CRUDError {
    /// A short name of the case, for comparisons in tests.
    var caseName: String {
        switch self {
        case .invalidRequest: "invalidRequest"
        case .transport: "transport"
        case .timedOut: "timedOut"
        case .cancelled: "cancelled"
        case .httpStatus(let response): "httpStatus(\(response.status))"
        case .conflict: "conflict"
        case .validation: "validation"
        case .decoding: "decoding"
        case .responseTooLarge: "responseTooLarge"
        case .tooManyRedirects: "tooManyRedirects"
        case .writeAccepted(_, let failure): "writeAccepted(\(failure.caseName))"
        case .incompleteList: "incompleteList"
        }
    }
}

/// Runs `body` and returns the `CRUDError` it threw (failing the test if it threw nothing or something else).
func crudError(
    _ body: () async throws -> some Any, sourceLocation: SourceLocation = #_sourceLocation
) async -> CRUDError? {
    do {
        _ = try await body()
        Issue.record("expected a CRUDError, got a value", sourceLocation: sourceLocation)
    } catch let error as CRUDError {
        return error
    } catch {
        Issue.record("expected a CRUDError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
