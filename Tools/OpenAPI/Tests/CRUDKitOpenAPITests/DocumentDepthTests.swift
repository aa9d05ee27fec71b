import CRUDKitOpenAPI
import Foundation
import Testing

/// A document nested deeper than the generator reads is refused as too deep, saying the limit and where (it was
/// refused as "not valid JSON" by Foundation's JSON parser, or as "neither JSON nor YAML" by libyaml's own limit),
/// and one nested up to the limit generates on a 512 KB thread.
@Suite struct DocumentDepthTests {
    /// A component `Deep` whose property `a` holds an object whose property `a` holds … `levels` times.
    static func nestedProperties(_ levels: Int) -> Data {
        let open = String(repeating: #"{"type": "object", "properties": {"a": "#, count: levels)
        let close = String(repeating: "}}", count: levels)
        return Data(
            """
            {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {},
            "components": {"schemas": {"Deep": \(open){"type": "string"}\(close)}}}
            """.utf8)
    }

    static func tooDeep(_ data: Data, options: GeneratorOptions = GeneratorOptions()) -> GeneratorError? {
        #expect(throws: GeneratorError.self) { try Generator.generate(data, options: options) }
    }

    @Test func aPropertyNestedTenThousandLevelsIsRefusedAsTooDeepWithTheLimitAndWhere() throws {
        let data = Self.nestedProperties(10_000)
        var unchecked = GeneratorOptions()
        unchecked.validates = false
        for options in [GeneratorOptions(), unchecked] {
            let error = try #require(Self.tooDeep(data, options: options))
            // Root, components, schemas, Deep: 4 levels; each property 2 more. The 129th level is the
            // `properties` object of the 63rd nested schema, on the second line: 35 bytes, 62 schemas of 39
            // bytes, and its 34th byte.
            #expect(error == .tooDeep(limit: 128, line: 2, column: 35 + 62 * 39 + 34))
            #expect(error.description.contains("more than 128 levels deep (line 2, column"))
            #expect(!error.description.contains("JSON"))
        }
        #expect(throws: GeneratorError.tooDeep(limit: 128, line: 2, column: 35 + 62 * 39 + 34)) {
            try Generator.validate(data)
        }
    }

    @Test func aDocumentNestedToTheLimitGeneratesOnA512KBThread() throws {
        // 4 + 2 × 62 = 128 levels: read. Schemas nested inline deeper than the mapper's own limit become JSON
        // with a diagnostic.
        let result = try DeepReferenceChainTests.onSmallStack { try Generator.generate(Self.nestedProperties(62)) }
        let deep = try NeverSilentTests.file(result, "Deep.swift")
        #expect(deep.contains("public struct Deep: Codable, Hashable, Sendable {"))
        #expect(result.diagnostics.count == 1)
        #expect(result.diagnostics.first?.message.contains("nested more than 32 deep") == true)
        #expect(throws: GeneratorError.self) { try Generator.generate(Self.nestedProperties(63)) }
    }

    @Test func aYAMLDocumentNestedTooDeepIsRefusedWithItsLine() throws {
        // Block mappings, two levels per property.
        var lines = ["openapi: 3.1.0", "info: {title: t, version: '1'}", "paths: {}", "components:", "  schemas:"]
        var indent = "    "
        lines.append(indent + "Deep:")
        for _ in 0..<100 {
            indent += "  "
            lines.append(indent + "type: object")
            lines.append(indent + "properties:")
            indent += "  "
            lines.append(indent + "a:")
        }
        lines.append(indent + "  type: string")
        // `Deep` is level 3 (line 6); each property adds `type`/`properties` and `a`: the 63rd `a` is level 129,
        // on line 6 + 3 × 63, indented 4 + 4 × 63.
        let block = Self.tooDeep(Data(lines.joined(separator: "\n").utf8))
        #expect(block == .tooDeep(limit: 128, line: 195, column: 257))
        // Flow collections, as a YAML document may hold them: 10,000 nested sequences on line 4.
        let flow =
            "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\nx-deep: "
            + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let error = try #require(Self.tooDeep(Data(flow.utf8)))
        #expect(error == .tooDeep(limit: 128, line: 4, column: 9 + 127))
    }

    @Test func bracketsInsideStringsCommentsAndBlockScalarsAreNotNesting() throws {
        let brackets = String(repeating: "[{", count: 500)
        let text = """
            openapi: 3.1.0
            info:
              title: "\(brackets)"
              description: |
                \(brackets)
                  - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -
              version: '1' # \(brackets)
            paths:
              /things/{id}: {}
            components:
              schemas:
                Note: {type: object, description: '\(brackets) it''s', properties: {text: {type: string}}}
            """
        let result = try Generator.generate(Data(text.utf8))
        #expect(try NeverSilentTests.file(result, "Note.swift").contains("public var text: String?"))
    }
}
