import Foundation

/// The body of a request: nothing, bytes in memory, or a file streamed from disk.
///
/// Large uploads (a multipart form with a video, say) use ``file(_:)`` so the bytes are read from disk
/// while sending instead of being loaded whole.
public enum HTTPBody: Sendable, Hashable {
    /// No body.
    case none
    /// Bytes held in memory.
    case data(Data)
    /// The contents of a local file, streamed while sending.
    case file(URL)

    /// The bytes of a ``data(_:)`` body; `nil` for the other cases.
    public var data: Data? {
        if case .data(let data) = self { return data }
        return nil
    }

    /// Whether there is nothing to send.
    public var isEmpty: Bool {
        switch self {
        case .none: true
        case .data(let data): data.isEmpty
        case .file: false
        }
    }
}
