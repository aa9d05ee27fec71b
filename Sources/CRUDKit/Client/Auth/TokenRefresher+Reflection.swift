// `TokenRefresher` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension TokenRefresher: CustomReflectable {
    /// No children: `dump(refresher)` shows the type only, not the current token.
    public nonisolated var customMirror: Mirror { Mirror(self, children: [:]) }
}
