import CRUDKit
import Foundation

/// A transport that records every request in a ``RequestRecorder`` and passes it on to another transport.
///
/// ```swift
/// let recording = RecordingTransport(URLSessionTransport())
/// // … send requests through `recording` …
/// recording.recorder.last?.path
/// ```
public struct RecordingTransport: Transport {
    /// The transport that answers.
    public let base: any Transport
    /// Where requests are recorded.
    public let recorder: RequestRecorder

    /// Wraps `base`, recording into `recorder`.
    ///
    /// - Parameters:
    ///   - base: The transport that answers.
    ///   - recorder: Where requests are recorded (a new one by default).
    public init(_ base: any Transport, recorder: RequestRecorder = RequestRecorder()) {
        self.base = base
        self.recorder = recorder
    }

    /// Records `request`, then sends it with ``base``.
    ///
    /// - Parameter request: The request.
    /// - Returns: The base transport's response.
    /// - Throws: Whatever the base transport throws.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        recorder.record(request)
        return try await base.send(request)
    }
}
