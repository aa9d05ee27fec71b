/// The value of a request that succeeded and has nothing to return, such as a `DELETE`.
///
/// ```swift
/// let done: Okay = try await api.send(Request(.delete, "sessions/current", decoder: .okay))
/// ```
public struct Okay: Sendable, Hashable, CustomStringConvertible {
    /// Creates the success value.
    public init() {}

    /// `"Okay"`.
    public var description: String { "Okay" }
}
