// `PageRequest` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension PageRequest: CustomReflectable {
    /// No children: `dump(page)` prints the redacted ``description`` only (a `next` link may carry a token).
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
