import CRUDKit
@_spi(TransportKit) import CRUDKitCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension InMemoryBackend {
    /// A failure the backend injects instead of (or after) answering normally.
    public enum Fault: Sendable, Hashable {
        /// Answers `status` (such as 503 or 429) without touching the data, with a `Retry-After` header of that
        /// many seconds when given, and the body `{"detail": "Injected failure."}`.
        case status(Int, retryAfter: Int? = nil)
        /// Throws `CRUDError/transport(underlying:)` without touching the data, as when a connection drops
        /// before the server reads the request.
        case dropConnection
        /// Handles the request (a write is stored), then throws `CRUDError/transport(underlying:)`: the answer
        /// is lost on the way back, so the client cannot know the write happened.
        case loseAnswer
    }

    /// The faults ``failRandomly(rate:seed:faults:)`` chooses from by default: a 503, a dropped connection and a
    /// lost answer, equally often.
    public static let defaultRandomFaults: [Fault] = [.status(503), .dropConnection, .loseAnswer]

    /// Makes the next `count` requests fail with `fault`, in addition to any already scheduled.
    ///
    /// ```swift
    /// backend.failNext(2, with: .status(503, retryAfter: 1))   // two 503s, then normal answers
    /// ```
    /// - Parameters:
    ///   - count: How many requests fail.
    ///   - fault: How they fail.
    public func failNext(_ count: Int = 1, with fault: Fault) {
        state.withLock { $0.scripted += Array(repeating: fault, count: max(count, 0)) }
    }

    /// Makes the next `count` requests answer `status` (with `Retry-After` when given) without touching the data.
    ///
    /// - Parameters:
    ///   - count: How many requests fail.
    ///   - status: The status to answer, such as 503.
    ///   - retryAfter: Seconds for a `Retry-After` header, or `nil` for none.
    public func failNext(_ count: Int, status: Int, retryAfter: Int? = nil) {
        failNext(count, with: .status(status, retryAfter: retryAfter))
    }

    /// Makes each later request fail with probability `rate`, choosing the fault from `faults`, with a
    /// pseudo-random generator seeded with `seed`: the same seed and the same sequence of requests give the same
    /// failures. Scripted failures (``failNext(_:with:)``) come first.
    ///
    /// - Parameters:
    ///   - rate: The probability of failure, from 0 to 1.
    ///   - seed: The generator's seed.
    ///   - faults: The faults to choose from, equally often (``defaultRandomFaults`` by default).
    public func failRandomly(rate: Double, seed: UInt64, faults: [Fault] = defaultRandomFaults) {
        state.withLock { $0.random = RandomFaults(rate: rate, faults: faults, generator: SplitMix64(seed: seed)) }
    }

    /// Cancels scripted and random failures.
    public func stopFailing() {
        state.withLock {
            $0.scripted = []
            $0.random = nil
        }
    }

    /// Sets a hook awaited before each request is handled: make requests slow, or hold one until the test says.
    ///
    /// The hook runs outside the backend's lock, so requests can wait in it concurrently. An error it throws is
    /// thrown by ``send(_:)`` (a ``CRUDError`` as is, others as `CRUDError/transport(underlying:)`).
    ///
    /// ```swift
    /// backend.setLatency { _ in try await Task.sleep(for: .milliseconds(20)) }
    /// ```
    /// - Parameter hook: The hook, or `nil` to answer at once.
    public func setLatency(_ hook: (@Sendable (HTTPRequest) async throws -> Void)?) {
        state.withLock { $0.latency = hook }
    }

    /// How many injected failures have happened so far, by kind: `"status"`, `"drop"`, `"lost"`.
    public var injectedFailures: [String: Int] { state.withLock { $0.injected } }

    /// The fault for the next request, if any (call with the lock held).
    static func nextFault(_ state: inout State) -> Fault? {
        if !state.scripted.isEmpty { return state.scripted.removeFirst() }
        guard var random = state.random, !random.faults.isEmpty else { return nil }
        defer { state.random = random }
        let roll = Double(random.generator.next() >> 11) / Double(1 << 53)
        guard roll < random.rate else { return nil }
        return random.faults[Int(random.generator.next() % UInt64(random.faults.count))]
    }

    /// The transport error a dropped connection or a lost answer throws.
    static func connectionLost() -> CRUDError {
        .transport(underlying: URLError(.networkConnectionLost))
    }
}

/// Random failures: a rate, the faults to choose from and the seeded generator.
struct RandomFaults: Sendable {
    var rate: Double
    var faults: [InMemoryBackend.Fault]
    var generator: SplitMix64
}

/// SplitMix64: a small, fast, seedable pseudo-random generator (the same seed gives the same sequence everywhere).
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
