// The one hand-written file of the plugin fixture (SwiftPM skips a target with no source file of its own); the
// models themselves are generated at build time by CRUDKitOpenAPIPlugin.

extension Book {
    /// Hand-written code beside generated code in the same module: the title as a shelf label shows it.
    public var shelfLabel: String { title.uppercased() }
}
