/// Where retry jitter comes from: the system's random numbers, or a seeded sequence that repeats in the library's
/// tests. (A caller who needs repeatable waits sets ``RetryPolicy/jitter`` to 0.)
package struct RandomSource: Sendable {
    private let next: @Sendable () -> Double

    /// Creates a source from a closure returning numbers in `0..<1`.
    package init(_ next: @escaping @Sendable () -> Double) { self.next = next }

    /// A number in `0..<1`.
    package func nextUnit() -> Double { min(max(next(), 0), 0.999_999_999) }

    /// The system's random number generator.
    package static let system = RandomSource { Double.random(in: 0..<1) }

    /// A repeatable sequence (SplitMix64) for tests: the same seed gives the same jitter.
    package static func seeded(_ seed: UInt64) -> RandomSource {
        let state = Locked(seed)
        return RandomSource {
            let value = state.withLock { state -> UInt64 in
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return z ^ (z >> 31)
            }
            return Double(value >> 11) / Double(UInt64(1) << 53)
        }
    }
}
