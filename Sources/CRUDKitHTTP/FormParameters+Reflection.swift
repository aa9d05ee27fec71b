// `FormParameters` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension FormParameters: CustomReflectable {
    /// No children: `dump(parameters)` prints the redacted ``description`` only (a `password` or `api_key`
    /// field's value is hidden).
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension FormParameters.Field: CustomReflectable {
    /// No children: `dump(field)` prints the redacted ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
