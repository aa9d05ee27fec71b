// `HTTPResponse` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension HTTPResponse: CustomReflectable {
    /// No children: `dump(response)` prints the redacted ``description`` only, not `Set-Cookie` or the URL's
    /// secrets.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
