/// How ``Generator`` turns a document into Swift: the conventions preset, which resources, and whether
/// diagnostics are errors.
public struct GeneratorOptions: Sendable, Hashable {
    /// A CRUDKit conventions preset (`APIConventions`) the generated code names.
    public enum Conventions: String, Sendable, Hashable, CaseIterable {
        /// `APIConventions.djangoREST`.
        case drf
        /// `APIConventions.rails`.
        case rails
        /// `APIConventions.fastAPI`.
        case fastapi
        /// `APIConventions.vapor`.
        case vapor
        /// `APIConventions.laravel`.
        case laravel
        /// `APIConventions.jsonAPI`.
        case jsonapi
        /// `APIConventions.standard`.
        case standard

        /// The Swift expression of the preset.
        var swift: String {
            switch self {
            case .drf: ".djangoREST"
            case .rails: ".rails"
            case .fastapi: ".fastAPI"
            case .vapor: ".vapor"
            case .laravel: ".laravel"
            case .jsonapi: ".jsonAPI"
            case .standard: ".standard"
            }
        }
    }

    /// The preset; `nil` (the default) recognizes it from the document (its page envelopes, error schemas,
    /// trailing slashes and media types).
    public var conventions: Conventions?
    /// The collection paths to generate (`["people", "posts"]`, the last static segment or the whole path
    /// without slashes at either end); empty (the default) for all. Schemas the chosen resources use are
    /// generated with them; others are not.
    public var only: [String]
    /// Whether any diagnostic fails generation (``GeneratorError/strict(_:)``).
    public var strict: Bool
    /// The access level of generated declarations: `"public"` (the default) or `"internal"`.
    public var accessLevel: String
    /// Whether the document is first decoded and checked by OpenAPIKit (default `true`); `false` skips that check
    /// (the benchmark's "generation alone", and tests of the mapping on documents already known to be valid).
    public var validates: Bool = true

    /// Options.
    /// - Parameters:
    ///   - conventions: The preset; `nil` to recognize it from the document.
    ///   - only: The resources to generate; empty for all.
    ///   - strict: Whether diagnostics are errors.
    ///   - accessLevel: `"public"` or `"internal"`.
    public init(
        conventions: Conventions? = nil, only: [String] = [], strict: Bool = false, accessLevel: String = "public"
    ) {
        self.conventions = conventions
        self.only = only
        self.strict = strict
        self.accessLevel = accessLevel == "internal" ? "internal" : "public"
    }
}

/// One generated Swift source file.
public struct GeneratedFile: Sendable, Hashable {
    /// The file name, such as `Person.swift`.
    public var name: String
    /// The Swift source.
    public var contents: String

    /// A file.
    /// - Parameters:
    ///   - name: The file name.
    ///   - contents: The Swift source.
    public init(name: String, contents: String) {
        self.name = name
        self.contents = contents
    }
}

/// What ``Generator/generate(_:options:)`` produced: the files and what it had to say.
public struct GenerationResult: Sendable, Hashable {
    /// The Swift files, in name order.
    public var files: [GeneratedFile]
    /// What could not be expressed as written, in document order.
    public var diagnostics: [Diagnostic]
    /// The preset the generated code uses.
    public var conventions: GeneratorOptions.Conventions
}
