import Foundation
import OpenAPIKit
import OpenAPIKit30
import Yams

/// Turns an OpenAPI 3.0 or 3.1 document into CRUDKit models: one Swift file per resource and per shared
/// schema, plus `APIDocument.swift` with the conventions the document shows.
///
/// ```swift
/// let result = try Generator.generate(Data(contentsOf: url), options: GeneratorOptions(conventions: .drf))
/// for file in result.files { try file.contents.write(to: output.appending(path: file.name), atomically: true, encoding: .utf8) }
/// ```
///
/// The output depends only on the document and the options: the same input gives the same bytes. The work runs on a
/// thread of its own with a large stack (OpenAPIKit's decoders and Yams' composer recurse once per level of the
/// document), so the caller's stack, a 512 KB secondary thread say, does not decide which documents generate.
public enum Generator {
    /// The document's version, read by OpenAPIKit.
    public enum Version: Sendable, Hashable {
        /// OpenAPI 3.0.x (`nullable: true`).
        case v30
        /// OpenAPI 3.1.x (`type: [T, "null"]`).
        case v31
    }

    /// Parses and validates the document with OpenAPIKit (3.0 documents with `OpenAPIKit30`, 3.1 with
    /// `OpenAPIKit`) and nothing else: what the benchmark compares generation with.
    /// - Parameter data: The document, JSON or YAML.
    /// - Returns: Its version.
    /// - Throws: ``GeneratorError/invalidDocument(_:)``, or ``GeneratorError/tooDeep(limit:line:column:)`` for a
    ///   document nested deeper than the generator reads.
    @discardableResult
    public static func validate(_ data: Data) throws -> Version {
        try LargeStack.run { try validateHere(data) }
    }

    private static func validateHere(_ data: Data) throws -> Version {
        let isJSON = data.first(where: { !$0.isWhitespace }) == UInt8(ascii: "{")
        // JSONDecoder refuses a deep document as "not valid JSON", and the decoders recurse once per level.
        do {
            try NestingDepth.check(String(decoding: data, as: UTF8.self))
        } catch let error as NestingDepthError {
            throw GeneratorError.tooDeep(limit: error.limit, line: error.line, column: error.column)
        }
        if !isJSON {
            // Yams' decoder would expand an alias bomb; refuse it first.
            do {
                try Node.checkAliasExpansion(String(decoding: data, as: UTF8.self))
            } catch let error as AliasExpansionError {
                throw GeneratorError.invalidDocument(error.description)
            } catch {
                throw GeneratorError.invalidDocument("neither JSON nor YAML: \(error)")
            }
        }
        let version = try version(of: data, isJSON: isJSON)
        do {
            switch version {
            case .v30:
                _ = try decode(OpenAPIKit30.OpenAPI.Document.self, from: data, isJSON: isJSON)
            case .v31:
                _ = try decode(OpenAPIKit.OpenAPI.Document.self, from: data, isJSON: isJSON)
            }
        } catch {
            throw GeneratorError.invalidDocument(String(describing: error))
        }
        return version
    }

    private static func decode<T: Decodable>(_ type: T.Type, from data: Data, isJSON: Bool) throws -> T {
        if isJSON { return try JSONDecoder().decode(T.self, from: data) }
        return try YAMLDecoder().decode(T.self, from: data)
    }

    private static func version(of data: Data, isJSON: Bool) throws -> Version {
        struct Header: Decodable { var openapi: String? }
        let header: Header
        do {
            header = try decode(Header.self, from: data, isJSON: isJSON)
        } catch {
            throw GeneratorError.invalidDocument("neither JSON nor YAML: \(error)")
        }
        guard let text = header.openapi else { throw GeneratorError.invalidDocument("no `openapi` version field") }
        if text.hasPrefix("3.0") { return .v30 }
        if text.hasPrefix("3.1") { return .v31 }
        throw GeneratorError.invalidDocument("version \(text); 3.0 and 3.1 are supported")
    }

    /// Generates the Swift files of a document.
    /// - Parameters:
    ///   - data: The document, JSON or YAML.
    ///   - options: The preset, the resources to generate, and strictness.
    /// - Returns: The files (sorted by name), the diagnostics and the preset used.
    /// - Throws: ``GeneratorError/invalidDocument(_:)`` for a document OpenAPIKit rejects,
    ///   ``GeneratorError/tooDeep(limit:line:column:)`` for one nested deeper than the generator reads,
    ///   ``GeneratorError/unknownResource(_:)`` for an `only` name that is not a resource, and
    ///   ``GeneratorError/strict(_:)`` in strict mode when there are diagnostics.
    public static func generate(
        _ data: Data, options: GeneratorOptions = GeneratorOptions()
    ) throws
        -> GenerationResult
    {
        try LargeStack.run { try generateHere(data, options: options) }
    }

    private static func generateHere(_ data: Data, options: GeneratorOptions) throws -> GenerationResult {
        if options.validates { _ = try validateHere(data) }
        guard let text = String(data: data, encoding: .utf8) else {
            throw GeneratorError.invalidDocument("not UTF-8")
        }
        let root: Node
        do {
            root = try Node.parse(text)
        } catch let error as NestingDepthError {
            throw GeneratorError.tooDeep(limit: error.limit, line: error.line, column: error.column)
        } catch {
            throw GeneratorError.invalidDocument(String(describing: error))
        }
        let mapper = SchemaMapper(root: root)
        let conventions = options.conventions ?? ConventionsDetector(mapper: mapper).detect()
        let builder = ResourceBuilder(mapper: mapper, conventions: conventions)
        let resources = try builder.build(only: options.only)
        if options.only.isEmpty {
            for key in mapper.componentKeys { _ = mapper.declareComponent(key) }
        }
        var declarations: [(String, Declaration)] = []
        for key in mapper.componentKeys {
            if let declaration = mapper.declarations[key] { declarations.append((key, declaration)) }
        }
        declarations += resources.inline.map { ("", $0) }
        declarations += mapper.extraDeclarations.map { ("", $0) }
        let storage = RecursiveStorage.mark(declarations.map(\.1))
        declarations = zip(declarations, storage.declarations).map { ($0.0, $1) }
        let emitter = SwiftEmitter(access: options.accessLevel)
        var files: [String: String] = [:]
        // File names unique without regard to case (`ABc.swift` and `Abc.swift` are one file on macOS).
        var fileNames = UniqueNames(["apidocument"])
        for (_, declaration) in declarations {
            let lowercased = declaration.name.lowercased()
            let claimed = fileNames.claim(lowercased)
            files[declaration.name + claimed.dropFirst(lowercased.count) + ".swift"] = emitter.file(for: declaration)
        }
        files["APIDocument.swift"] = emitter.documentFile(
            title: root["info"]?["title"]?.string, version: root["info"]?["version"]?.string,
            conventions: conventions, problemDetails: ConventionsDetector(mapper: mapper).usesProblemDetails(),
            calendarDate: mapper.needsCalendarDate, indirect: storage.boxes)
        var seen: Set<Diagnostic> = []
        let diagnostics = mapper.diagnostics.filter { seen.insert($0).inserted }
        if options.strict, !diagnostics.isEmpty { throw GeneratorError.strict(diagnostics) }
        return GenerationResult(
            files: files.keys.sorted().map { GeneratedFile(name: $0, contents: files[$0] ?? "") },
            diagnostics: diagnostics, conventions: conventions)
    }
}

extension UInt8 {
    fileprivate var isWhitespace: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}
