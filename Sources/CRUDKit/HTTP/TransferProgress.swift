/// How far an upload or a download has come.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Bytes sent or received so far (for a resumed download, the bytes already on disk included).
    public var completedBytes: Int64
    /// The total expected, when known (from the body's length or the response's `Content-Length`).
    public var expectedBytes: Int64?

    /// Creates a progress value.
    public init(completedBytes: Int64, expectedBytes: Int64?) {
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
/// ```swift
/// let observer = TransferObserver(
///     upload: { print("sent \($0.completedBytes) of \($0.expectedBytes ?? 0)") },
///     download: { progress in bar.value = progress.fractionCompleted ?? 0 }
/// )
/// let response = try await transport.send(request, observer: observer)
/// ```
public struct TransferObserver: Sendable {
    /// Called as the request body is sent.
    public var upload: (@Sendable (TransferProgress) -> Void)?
    /// Called as the response body arrives.
    public var download: (@Sendable (TransferProgress) -> Void)?

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
