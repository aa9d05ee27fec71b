// `DownloadTask` reflects no children: `dump(_:)`, a debugger's variables view and tools that walk a value with
// `Mirror` see only its redacted description (or its type), never a secret it keeps.

extension DownloadTask: CustomReflectable {
    /// No children: `dump(task)` shows the type only, not the request's credential headers.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
