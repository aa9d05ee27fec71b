// `MultipartForm` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension MultipartForm: CustomReflectable {
    /// No children: `dump(form)` shows the type only, not the parts' values (a form may carry a password).
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
