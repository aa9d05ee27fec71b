import CRUDKit
import Foundation

/// One HTTP exchange as the API's log handler reported it.
struct Exchange: Sendable {
    var method: HTTPMethod
    var path: String
    /// The status, or `nil` when the request failed without an answer.
    var status: Int?
    var milliseconds: Double
}

/// A step that did not behave as expected.
struct StepFailure: Error, CustomStringConvertible {
    var description: String
}

/// Prints the walk: a title per step, one line per HTTP exchange (from ``LogEvent``s) and what each step
/// checked; counts steps and requests for the summary.
final class Reporter: Sendable {
    private struct State {
        var walk = ""
        var step = ""
        var stepHasPrinted = false
        var exchanges: [Exchange] = []
        var stepsPassed = 0
        var requests = 0
    }

    private let state = Locked(State())
    /// Told the walk's heading and the step's name as each step begins (the demo's `--fail-at` hook).
    private let onBegin: @Sendable (_ walk: String, _ step: String) -> Void

    /// Creates a reporter.
    /// - Parameter onBegin: Told the walk's heading and the step's name as each step begins.
    init(onBegin: @escaping @Sendable (_ walk: String, _ step: String) -> Void = { _, _ in }) {
        self.onBegin = onBegin
    }

    /// Steps that passed so far.
    var stepsPassed: Int { state.withLock { $0.stepsPassed } }
    /// HTTP exchanges so far.
    var requests: Int { state.withLock { $0.requests } }
    /// The name of the current step.
    var step: String { state.withLock { $0.step } }
    /// The exchanges of the current step.
    var exchanges: [Exchange] { state.withLock { $0.exchanges } }

    /// The API's log handler: prints a line for each answer or failure.
    func log(_ event: LogEvent) {
        let status: Int?
        switch event.kind {
        case .responseReceived(let code): status = code
        case .failed(let error) where error.response == nil: status = nil
        default: return
        }
        let exchange = Exchange(
            method: event.method, path: Self.path(of: event.url), status: status,
            milliseconds: (event.duration?.seconds ?? 0) * 1000)
        let step = state.withLock { state -> String in
            state.exchanges.append(exchange)
            state.requests += 1
            defer { state.stepHasPrinted = true }
            return state.stepHasPrinted ? "" : state.step
        }
        let method = exchange.method.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
        let path =
            exchange.path.count < 48
            ? exchange.path.padding(toLength: 48, withPad: " ", startingAt: 0)
            : exchange.path + " "
        let code = exchange.status.map(String.init) ?? "---"
        print("  \(Self.column(step))\(method)\(path)\(code) \(Self.rightAligned(exchange.milliseconds)) ms")
    }

    /// Prints the heading of a walk.
    func heading(_ title: String) {
        state.withLock { $0.walk = title }
        print("\n\(title)")
    }

    /// Starts a step: the exchanges that follow belong to it.
    func begin(_ step: String) {
        let walk = state.withLock { state in
            state = State(walk: state.walk, step: step, stepsPassed: state.stepsPassed, requests: state.requests)
            return state.walk
        }
        onBegin(walk, step)
    }

    /// Forgets the current step's exchanges so far (they stay printed), so that its check sees only what follows.
    func resetExchanges() {
        state.withLock { $0.exchanges = [] }
    }

    /// Ends the current step as passed and prints what it checked.
    func pass(_ detail: String) {
        let step = state.withLock { state -> String in
            state.stepsPassed += 1
            return state.stepHasPrinted ? "" : state.step
        }
        print("  \(Self.column(step))✓ \(detail)")
    }

    /// The path and query of a logged URL.
    private static func path(of url: String) -> String {
        guard let components = URLComponents(string: url) else { return url }
        let query = components.percentEncodedQuery.map { "?\($0)" } ?? ""
        return components.percentEncodedPath + query
    }

    private static func column(_ step: String) -> String {
        step.padding(toLength: 12, withPad: " ", startingAt: 0)
    }

    private static func rightAligned(_ milliseconds: Double) -> String {
        let text = String(format: "%.1f", milliseconds)
        return String(repeating: " ", count: max(0, 6 - text.count)) + text
    }
}
