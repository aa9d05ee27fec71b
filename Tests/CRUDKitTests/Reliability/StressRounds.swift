import Foundation
import Testing

/// The rounds of a test that races threads: a fixed few in `swift test`, and as many as fit in
/// `CRUDKIT_STRESS_SECONDS` under `.ci/stress.sh`.
///
/// A loop of a thousand rounds that each start servers and threads takes milliseconds per round on an idle machine
/// and a third of a second at load 12 on two cores, so its time grows with the machine's load: `swift test` runs a
/// quick version that still pins the behaviour, and the stress step of CI runs the same rounds for a time, not a
/// count.
///
/// ```swift
/// @Test func quick() throws { try race(.quick(20)) }
/// @Test(.enabled(if: StressRounds.enabled, StressRounds.skipReason), .timeLimit(StressRounds.timeLimit))
/// func underStress() throws { try race(.timed) }
/// ```
struct StressRounds: Sequence, CustomStringConvertible {
    /// Seconds each stress test runs (`CRUDKIT_STRESS_SECONDS`, a positive number), or `nil` in an ordinary run.
    static let seconds: Double? = {
        guard let text = ProcessInfo.processInfo.environment["CRUDKIT_STRESS_SECONDS"],
            let seconds = Double(text), seconds.isFinite, seconds > 0
        else { return nil }
        return Swift.min(seconds, 3_600)
    }()

    /// Whether this run is a stress run.
    static var enabled: Bool { seconds != nil }

    /// Why a stress test is skipped in an ordinary run (Swift Testing prints it).
    static let skipReason: Comment =
        "a stress test, bounded by time: runs under .ci/stress.sh (CRUDKIT_STRESS_SECONDS=<seconds per test>)"

    /// A stress test's time limit: its seconds rounded up to minutes, two more for its last round and its checks,
    /// scaled as ``TestEnvironment/minutes(_:)`` scales every limit.
    static var timeLimit: TimeLimitTrait {
        .timeLimit(.minutes(TestEnvironment.minutes(Int(((seconds ?? 0) / 60).rounded(.up)) + 2)))
    }

    /// `count` rounds, for `swift test`.
    static func quick(_ count: Int) -> StressRounds { StressRounds(count: count, seconds: nil) }

    /// Rounds until ``seconds`` have passed (at least one), for the stress step.
    static var timed: StressRounds { StressRounds(count: nil, seconds: seconds ?? 0) }

    private let count: Int?
    private let seconds: Double?

    var description: String {
        if let count { return "\(count) rounds" }
        return "\(seconds ?? 0) s of rounds"
    }

    func makeIterator() -> Iterator {
        let clock = ContinuousClock()
        let end = seconds.map { clock.now + .milliseconds(Int64($0 * 1_000)) }
        return Iterator(count: count, clock: clock, end: end)
    }

    /// The round numbers, from 0, until the count or the time runs out.
    struct Iterator: IteratorProtocol {
        let count: Int?
        let clock: ContinuousClock
        let end: ContinuousClock.Instant?
        var round = 0

        mutating func next() -> Int? {
            if let count, round >= count { return nil }
            if let end, round > 0, clock.now >= end { return nil }
            defer { round += 1 }
            return round
        }
    }
}
