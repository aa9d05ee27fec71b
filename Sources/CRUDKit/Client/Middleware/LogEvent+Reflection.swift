// `LogEvent` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension LogEvent: CustomReflectable {
    /// No children: `dump(event)` prints the redacted ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
