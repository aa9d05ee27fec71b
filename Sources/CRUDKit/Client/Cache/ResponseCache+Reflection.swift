// `ResponseCache` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension ResponseCache: CustomReflectable {
    /// No children: `dump(cache)` shows the type only, not the stored bodies or the credentials they are keyed by.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
