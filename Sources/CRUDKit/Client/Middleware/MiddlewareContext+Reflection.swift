// `MiddlewareContext` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension MiddlewareContext: CustomReflectable {
    /// No children: `dump(context)` shows the type only, not the API configuration it holds.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
