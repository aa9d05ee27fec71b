import Testing

@testable import CRUDKit

/// Issue 29, item 3: `Duration.nanoseconds` clamps at `UInt64.max` instead of wrapping.
@Suite struct DurationNanosecondsTests {
    /// The whole seconds of `UInt64.max` nanoseconds (584 years), and the nanoseconds left over.
    static let lastSecond: Int64 = 18_446_744_073
    static let lastNanoseconds: Int64 = 709_551_615

    static func duration(seconds: Int64, nanoseconds: Int64) -> Duration {
        Duration(secondsComponent: seconds, attosecondsComponent: nanoseconds * 1_000_000_000)
    }

    @Test func durationsWithinTheLastSecondClampInsteadOfWrapping() {
        // Exactly the largest count, and one below it, are kept.
        #expect(Self.duration(seconds: Self.lastSecond, nanoseconds: Self.lastNanoseconds).nanoseconds == .max)
        #expect(
            Self.duration(seconds: Self.lastSecond, nanoseconds: Self.lastNanoseconds - 1).nanoseconds == UInt64.max - 1
        )
        // Past it, inside the same second: before, these wrapped to a fraction of a second.
        #expect(Self.duration(seconds: Self.lastSecond, nanoseconds: Self.lastNanoseconds + 1).nanoseconds == .max)
        #expect(Self.duration(seconds: Self.lastSecond, nanoseconds: 999_999_999).nanoseconds == .max)
        // Past the last second, and the largest duration there is.
        #expect(Self.duration(seconds: Self.lastSecond + 1, nanoseconds: 0).nanoseconds == .max)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        // The ordinary range and below it.
        #expect(Duration.milliseconds(1_500).nanoseconds == 1_500_000_000)
        #expect(Duration.seconds(-3).nanoseconds == 0)
    }
}
