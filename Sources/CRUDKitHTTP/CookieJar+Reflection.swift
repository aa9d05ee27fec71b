// `CookieJar` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension CookieJar: CustomReflectable {
    /// No children: `dump(jar)` shows the type only, not the stored cookies' values.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
