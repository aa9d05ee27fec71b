import Dispatch
import Foundation

/// The time source of an ``API``: a monotonic clock for durations and back-off, the date for HTTP dates
/// (`Retry-After`), and a cancellable wait.
///
/// ``SystemClock`` is the default; tests pass a manual clock whose `sleep` returns at once and only advances time.
public protocol APIClock: Sendable {
    /// Monotonic time since an arbitrary origin; only differences matter.
    func now() -> Duration
    /// The current date, for HTTP dates such as `Retry-After: Wed, 21 Oct 2015 07:28:00 GMT`.
    func date() -> Date
    /// Waits `duration`.
    /// - Throws: `CancellationError` when the calling task is cancelled while waiting.
    func sleep(for duration: Duration) async throws
}

/// The real clock: `DispatchTime` for durations, `Date()` for dates, `Task.sleep` for waiting.
public struct SystemClock: APIClock {
    /// Creates the system clock.
    public init() {}

    /// Nanoseconds since boot (uptime), as a `Duration`.
    public func now() -> Duration { .nanoseconds(DispatchTime.now().uptimeNanoseconds) }

    /// The current date.
    public func date() -> Date { Date() }

    /// Waits with `Task.sleep`, which ends early with `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else { return }
        try await Task.sleep(nanoseconds: duration.nanoseconds)
    }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `0...UInt64.max`.
    package var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (total, carried) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return carried ? .max : total
    }

    /// The duration in seconds, as a floating-point number.
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
