/// How far an upload or a download has come.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Bytes sent or received so far (for a resumed download, the bytes already on disk included).
    public var completedBytes: Int64
    /// The total expected, when known (from the body's length or the response's `Content-Length`).
    public var expectedBytes: Int64?

    /// Creates a progress value.
    @_spi(TransportKit) public init(completedBytes: Int64, expectedBytes: Int64?) {
        self.completedBytes = completedBytes
        self.expectedBytes = expectedBytes
    }

    /// The completed fraction from 0 to 1, when the total is known.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(completedBytes) / Double(expectedBytes))
    }

    /// `completed/expected bytes`.
    public var description: String {
        "\(completedBytes)/\(expectedBytes.map(String.init) ?? "?") bytes"
    }
}

/// Closures told how a transfer progresses: bytes sent, then bytes received.
///
/// The closures are called in order, one at a time, on a queue of the transport; keep them short (hop to your
/// own queue or actor for UI work).
///
/// ``URLSessionTransport`` calls each closure at a bounded rate: the first report, then at most one per 1% of the
/// expected total (per 64 KiB when the total is unknown) and at most one per 50 ms, whichever is coarser, and
/// always the final one (`completedBytes` equal to the total, before the request returns). A report held back is
/// delivered 50 ms later if no newer one was, so a transfer that stalls still reports the bytes it has. `completedBytes`
/// never goes down and is never reported twice; a 100 KB body is at most a few dozen calls, not one per chunk.
///
/// ```swift
/// let observer = TransferObserver(
///     upload: { print("sent \($0.completedBytes) of \($0.expectedBytes ?? 0)") },
///     download: { progress in bar.value = progress.fractionCompleted ?? 0 }
/// )
/// let response = try await transport.send(request, observer: observer)
/// ```
public struct TransferObserver: Sendable {
    /// Called as the request body is sent (read by transports).
    @_spi(TransportKit) public var upload: (@Sendable (TransferProgress) -> Void)?
    /// Called as the response body arrives (read by transports).
    @_spi(TransportKit) public var download: (@Sendable (TransferProgress) -> Void)?

    /// Creates an observer; either closure may be left out.
    public init(
        upload: (@Sendable (TransferProgress) -> Void)? = nil,
        download: (@Sendable (TransferProgress) -> Void)? = nil
    ) {
        self.upload = upload
        self.download = download
    }

    /// An observer that is told nothing.
    public static let none = TransferObserver()
}

/// Decides which progress reports reach a ``TransferObserver`` closure: the first, then at most one per 1% of the
/// total (per 64 KB without a total) and per 50 ms, and always the final one;
/// never a smaller or repeated `completedBytes`.
///
/// Public so that transports written outside CRUDKit report progress at the same bounded rate:
///
/// ```swift
/// var throttle = ProgressThrottle()
/// let progress = TransferProgress(completedBytes: received, expectedBytes: total)
/// if throttle.admit(progress, now: DispatchTime.now().uptimeNanoseconds) { observer.download?(progress) }
/// ```
@_spi(TransportKit) public struct ProgressThrottle: Sendable {
    /// The shortest time between two reports that are not the first or the final one, in nanoseconds (50 ms).
    package static let minimumInterval: UInt64 = 50_000_000
    /// The smallest step between two reports when the total is unknown.
    package static let unknownTotalStep: Int64 = 64 * 1024

    private var lastBytes: Int64 = -1
    private var lastTime: UInt64 = 0

    /// Creates a throttle that has let nothing through yet.
    public init() {}

    /// The `completedBytes` of the last report let through; -1 before the first.
    package var lastReported: Int64 { lastBytes }

    /// Whether `progress` is reported now (and, if so, remembers it).
    /// - Parameters:
    ///   - progress: The progress so far.
    ///   - final: Whether the transfer is complete (a final report is never held back).
    ///   - now: The time, in uptime nanoseconds.
    /// - Returns: Whether to report `progress`.
    public mutating func admit(_ progress: TransferProgress, final: Bool = false, now: UInt64) -> Bool {
        guard progress.completedBytes > lastBytes else { return false }
        let complete = final || progress.expectedBytes.map { progress.completedBytes >= $0 } ?? false
        if lastBytes >= 0 && !complete {
            let step = progress.expectedBytes.map { max(1, $0 / 100) } ?? Self.unknownTotalStep
            guard progress.completedBytes - lastBytes >= step, now - min(lastTime, now) >= Self.minimumInterval else {
                return false
            }
        }
        lastBytes = progress.completedBytes
        lastTime = now
        return true
    }

    /// Whether a report held back earlier is delivered now, at least 50 ms after the last one
    /// (whatever its step), so that a transfer that stalls still reports the bytes it has.
    /// - Parameters:
    ///   - progress: The latest progress, held back so far.
    ///   - now: The time, in uptime nanoseconds.
    /// - Returns: Whether to report `progress` now.
    public mutating func admitTrailing(_ progress: TransferProgress, now: UInt64) -> Bool {
        guard progress.completedBytes > lastBytes, now - min(lastTime, now) >= Self.minimumInterval else {
            return false
        }
        lastBytes = progress.completedBytes
        lastTime = now
        return true
    }
}
