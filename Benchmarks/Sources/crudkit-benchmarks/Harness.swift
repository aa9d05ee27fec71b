import Foundation

/// What the command line asked for.
struct BenchmarkOptions: Sendable {
    /// Suites to run; empty runs all.
    var suites: Set<String>
    /// Few iterations, to prove the benchmarks still run (CI).
    var smoke: Bool

    init(arguments: [String]) {
        smoke = arguments.contains("--smoke") || ProcessInfo.processInfo.environment["BENCH_SMOKE"] != nil
        suites = Set(arguments.dropFirst().filter { !$0.hasPrefix("--") })
    }

    /// Scales an iteration count down in smoke mode.
    func iterations(_ full: Int) -> Int { smoke ? max(1, full / 100) : full }
}

/// The unit a figure is in, and which direction is better.
enum Unit {
    /// Nanoseconds per operation: lower is better.
    case nanoseconds
    /// Microseconds per operation: lower is better.
    case microseconds
    /// Megabytes per second: higher is better.
    case megabytesPerSecond
    /// Requests per second: higher is better.
    case requestsPerSecond

    var label: String {
        switch self {
        case .nanoseconds: "ns/op"
        case .microseconds: "µs/op"
        case .megabytesPerSecond: "MB/s"
        case .requestsPerSecond: "req/s"
        }
    }

    var higherIsBetter: Bool {
        switch self {
        case .nanoseconds, .microseconds: false
        case .megabytesPerSecond, .requestsPerSecond: true
        }
    }
}

/// Monotonic time in nanoseconds.
func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Runs `body` `iterations` times, `rounds` times over, and returns the best round's nanoseconds per iteration.
///
/// The best round is the least disturbed by the other process on the machine.
func nanosecondsPerIteration(iterations: Int, rounds: Int = 5, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<rounds {
        let start = now()
        for _ in 0..<iterations { try body() }
        best = min(best, Double(now() - start) / Double(iterations))
    }
    return best
}

/// The async form of ``nanosecondsPerIteration(iterations:rounds:_:)``.
func nanosecondsPerIteration(
    iterations: Int,
    rounds: Int = 5,
    _ body: () async throws -> Void
) async rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<rounds {
        let start = now()
        for _ in 0..<iterations { try await body() }
        best = min(best, Double(now() - start) / Double(iterations))
    }
    return best
}

/// Times `ours` and `baseline` in interleaved rounds, as a user comparing two clients would: each round runs a batch
/// of `iterations` of each, the order swapped every round, so both meet the same load. Returns each one's median
/// nanoseconds per iteration over the rounds, and the per-round ratios (ours / baseline) sorted.
func interleavedNanosecondsPerIteration(
    iterations: Int,
    rounds: Int = 11,
    _ ours: () async throws -> Void,
    baseline: () async throws -> Void
) async throws -> (ours: Double, baseline: Double, ratios: [Double]) {
    func batch(_ body: () async throws -> Void) async throws -> Double {
        let start = now()
        for _ in 0..<iterations { try await body() }
        return Double(now() - start) / Double(iterations)
    }
    var oursTimes: [Double] = []
    var baselineTimes: [Double] = []
    var ratios: [Double] = []
    for round in 0..<rounds {
        let first = try await batch(round % 2 == 0 ? ours : baseline)
        let second = try await batch(round % 2 == 0 ? baseline : ours)
        let (mine, theirs) = round % 2 == 0 ? (first, second) : (second, first)
        oursTimes.append(mine)
        baselineTimes.append(theirs)
        ratios.append(mine / theirs)
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    return (median(oursTimes), median(baselineTimes), ratios.sorted())
}

/// Prints the header of a suite's table.
func printSuiteHeader(_ title: String) {
    print("")
    print("## \(title)")
    print(
        "case".padding(toLength: 46, withPad: " ", startingAt: 0) + "  "
            + "ours".leftPadded(12) + "  " + "baseline".leftPadded(12) + "  "
            + "unit".padding(toLength: 6, withPad: " ", startingAt: 0)
            + "  " + "ratio".leftPadded(7) + "  target"
    )
}

/// Prints one figure beside the baseline measured in the same run, the ratio, and whether the target is met.
///
/// The ratio is always "how many times better or worse than the baseline" in the unit's direction:
/// for times it is ours / baseline (lower is better), for throughputs ours / baseline (higher is better).
/// - Parameters:
///   - name: What was measured.
///   - ours: CRUDKit's figure.
///   - baseline: The same work done the plain way (`baselineName` says how), measured in this run.
///   - unit: The unit of both figures.
///   - target: The ratio the issue asks for: at most this for times, at least this for throughputs.
@discardableResult
func report(_ name: String, ours: Double, baseline: Double, baselineName: String, unit: Unit, target: Double?) -> Bool {
    let ratio = ours / baseline
    let met: Bool
    var targetText = ""
    if let target, BenchmarkOptions(arguments: CommandLine.arguments).smoke {
        // A smoke run's few iterations prove the code runs; its figures say nothing about the targets.
        met = true
        targetText = (unit.higherIsBetter ? "≥ " : "≤ ") + String(format: "%.2f×", target) + "  (smoke: not judged)"
    } else if let target {
        met = unit.higherIsBetter ? ratio >= target : ratio <= target
        targetText =
            (unit.higherIsBetter ? "≥ " : "≤ ") + String(format: "%.2f×", target) + (met ? "  met" : "  MISSED")
    } else {
        met = true
    }
    print(
        name.padding(toLength: 46, withPad: " ", startingAt: 0) + "  " + format(ours).leftPadded(12) + "  "
            + format(baseline).leftPadded(12) + "  " + unit.label.padding(toLength: 6, withPad: " ", startingAt: 0)
            + "  " + String(format: "%.2f×", ratio).leftPadded(7) + "  " + targetText
    )
    print("    baseline: \(baselineName)")
    return met
}

private func format(_ value: Double) -> String {
    if value >= 1000 { return String(format: "%.0f", value) }
    if value >= 10 { return String(format: "%.1f", value) }
    return String(format: "%.3f", value)
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
