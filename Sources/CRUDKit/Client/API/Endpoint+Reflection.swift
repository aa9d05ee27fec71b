// `Endpoint` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension Endpoint: CustomReflectable {
    /// No children: `dump(endpoint)` prints the redacted ``description`` only (a URL may hold a secret query value).
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
