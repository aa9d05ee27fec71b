// `CRUDError` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension CRUDError: CustomReflectable {
    /// No children: `dump(error)` prints the redacted ``description`` only (the stored response may carry
    /// cookies, a URL password or a secret query value).
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension CRUDError.DecodingFailure: CustomReflectable {
    /// No children: `dump` prints the ``description`` only (the stored body excerpt may quote a credential).
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
