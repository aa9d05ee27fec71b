/// Something in an OpenAPI document the generator could not express as it is written, where it is, and what was
/// done instead.
///
/// The generator never drops a construct silently: each one it cannot express becomes a diagnostic, and
/// ``GeneratorOptions/strict`` makes every diagnostic an error.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The JSON pointer (RFC 6901) of the construct in the document, such as
    /// `#/components/schemas/Person/properties/tags`.
    public var pointer: String
    /// What could not be expressed and what was generated instead.
    public var message: String

    /// Creates a diagnostic.
    /// - Parameters:
    ///   - pointer: The JSON pointer of the construct.
    ///   - message: What could not be expressed and what was done instead.
    public init(pointer: String, message: String) {
        self.pointer = pointer
        self.message = message
    }

    /// `pointer: message`.
    public var description: String { "\(pointer): \(message)" }
}

/// Why generation failed.
public enum GeneratorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not a JSON or YAML document, or not an OpenAPI 3.0 or 3.1 document; the text says why.
    case invalidDocument(String)
    /// ``GeneratorOptions/strict`` was set and the generator had something to say.
    case strict([Diagnostic])
    /// `--only` named a resource the document does not have.
    case unknownResource(String)
    /// The document nests objects and arrays (JSON) or mappings and sequences (YAML) more than `limit` levels
    /// deep, first at `line` and `column` (1-based; the column counts bytes); it is refused before it is parsed.
    case tooDeep(limit: Int, line: Int, column: Int)

    /// What went wrong, for a person.
    public var description: String {
        switch self {
        case .invalidDocument(let reason): "not an OpenAPI 3.0 or 3.1 document: \(reason)"
        case .strict(let diagnostics):
            "strict mode: \(diagnostics.count) diagnostic(s)\n"
                + diagnostics.map { "error: \($0)" }.joined(separator: "\n")
        case .unknownResource(let name): "--only names \"\(name)\", which is not a resource path of the document"
        case .tooDeep(let limit, let line, let column):
            "the document nests objects and arrays more than \(limit) levels deep (line \(line), column \(column)); "
                + "crudkit-openapi reads documents up to \(limit) levels deep"
        }
    }
}
