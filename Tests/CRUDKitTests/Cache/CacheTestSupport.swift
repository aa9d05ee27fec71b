import Foundation
import Testing

@testable import CRUDKit

/// Counts events and lets a test wait until a number of them happened, without sleeping.
final class Tally: Sendable {
    private struct State {
        var count = 0
        var waiters: [(target: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = Locked(State())

    var count: Int { state.withLock { $0.count } }

    func increment() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count += 1
            let count = state.count
            let ready = state.waiters.filter { $0.target <= count }.map(\.continuation)
            state.waiters.removeAll { $0.target <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `target` events have happened.
    func wait(until target: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.count >= target { return true }
                state.waiters.append((target, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// A transport that holds every request until ``release()``, and counts arrivals and cancellations.
final class GateTransport: Transport {
    private struct State {
        var requests: [HTTPRequest] = []
        var released = false
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    }
    private let state = Locked(State())
    private let respond: @Sendable (HTTPRequest) throws -> HTTPResponse
    /// Requests that reached the transport.
    let arrivals = Tally()
    /// Requests whose task was cancelled while held.
    let cancellations = Tally()

    init(respond: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        self.respond = respond
    }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// Lets every held request and every later one through.
    func release() {
        let held = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.released = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in held { continuation.resume() }
    }

    /// Lets the held requests that `matches` selects through; the others stay held.
    func release(where matches: (HTTPRequest) -> Bool) {
        let held = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let numbers = state.waiting.keys.filter { matches(state.requests[$0 - 1]) }
            return numbers.compactMap { state.waiting.removeValue(forKey: $0) }
        }
        for continuation in held { continuation.resume() }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let number = state.withLock { state -> Int in
            state.requests.append(request)
            return state.requests.count
        }
        arrivals.increment()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let goNow = state.withLock { state -> Bool in
                    if state.released || Task.isCancelled { return true }
                    state.waiting[number] = continuation
                    return false
                }
                if goNow { continuation.resume() }
            }
        } onCancel: {
            let held = state.withLock { $0.waiting.removeValue(forKey: number) }
            cancellations.increment()
            held?.resume()
        }
        if Task.isCancelled { throw CRUDError.cancelled }
        return try respond(request)
    }
}

/// Waits, yielding, until `condition` holds; gives up with a failure after `limit` (five times as long under a
/// sanitizer) or when the test is cancelled (by the suites' time limit), so a wait that never succeeds fails the
/// test with a message instead of spinning on. The default is 120 s: the tasks waited for take a turn of the pool
/// per step, and beside the CPU-heavy suites a turn took up to a second on the loaded 2 cores.
func waitUntil(
    _ what: String = "the condition", within limit: Duration = .seconds(120),
    _ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation
) async {
    let giveUp = ContinuousClock.now + (TestEnvironment.underSanitizer ? limit * 5 : limit)
    while !condition() {
        if Task.isCancelled || ContinuousClock.now > giveUp {
            Issue.record("\(what) never held", sourceLocation: sourceLocation)
            return
        }
        await Task.yield()
    }
}

let adaJSON = #"{"id": 1, "firstName": "Ada", "lastName": "Lovelace"}"#
