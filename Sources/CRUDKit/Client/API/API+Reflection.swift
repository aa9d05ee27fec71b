// `API` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension API: CustomReflectable {
    /// No children: `dump(api)` shows the type only, not the configuration's token, headers or base URL password.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
