// `RequestBody` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension RequestBody: CustomReflectable {
    /// No children: `dump(body)` prints the redacted ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
