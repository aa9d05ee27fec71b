// `RequestHandle` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension RequestHandle: CustomReflectable {
    /// No children: `dump(handle)` shows the type only, not the request's credential headers.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
