// `URLSessionTransport` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension URLSessionTransport: CustomReflectable {
    /// No children: `dump(transport)` shows the type only, not its cookie jar or the requests in flight.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
