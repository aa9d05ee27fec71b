import CRUDKit
import CRUDKitOpenAPI
import Foundation
import OpenAPISnapshotNames31
import Testing

/// Constructs that used to become wrong or uncompilable Swift without a word: integer enums, `allOf` and `$ref`
/// cycles, property names that are keywords or not identifiers, duplicate enum values, and YAML alias bombs. Each
/// now generates correct code or a diagnostic with its JSON pointer; the `names-3.1.json` fixture's output is the
/// compiled `OpenAPISnapshotNames31` target.
@Suite struct NeverSilentTests {
    static func document(_ schemas: String) -> Data {
        Data(
            """
            {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}, "components": {"schemas": {
            \(schemas)}}}
            """.utf8)
    }

    static func file(_ result: GenerationResult, _ name: String) throws -> String {
        try #require(result.files.first { $0.name == name }).contents
    }

    static let coding = JSONCoding.camelCase

    @Test func theAwkwardNamesFixtureMatchesItsCompiledSnapshot() throws {
        let result = try Generator.generate(GeneratorTests.fixture("names-3.1.json"))
        let expected = try GeneratorTests.snapshot("Names31")
        #expect(result.files.map(\.name) == expected.keys.sorted())
        for file in result.files {
            #expect(file.contents == expected[file.name], "\(file.name) differs from Tests/Snapshots/Names31")
        }
    }

    @Test func anIntegerEnumIsAnEnumThatKeepsUnknownValues() throws {
        let result = try Generator.generate(
            Self.document(#""Level": {"type": "integer", "enum": [1, 2, 3]}, "Untyped": {"enum": [4, 5]}"#))
        let level = try Self.file(result, "Level.swift")
        #expect(level.contains("enum Level: RawRepresentable, Codable, Hashable, Sendable {"))
        #expect(level.contains("case unknown(Int)"))
        #expect(!level.contains("typealias"))
        #expect(try Self.file(result, "Untyped.swift").contains("case unknown(Int)"))
        #expect(result.diagnostics.isEmpty)
        // The compiled fixture's `Priority` (`enum: [1, 2, 3, -1, 2]`).
        #expect(try Self.coding.decode(Priority.self, from: Data("2".utf8)) == .value2)
        #expect(try Self.coding.decode(Priority.self, from: Data("-1".utf8)) == .valueMinus1)
        #expect(try Self.coding.decode(Priority.self, from: Data("7".utf8)) == .unknown(7))
        #expect(try JSON(data: Self.coding.encode(Priority.unknown(7))) == 7)
        #expect(try JSON(data: Self.coding.encode(Priority.value3)) == 3)
        #expect(throws: DecodingError.self) { try Self.coding.decode(Priority.self, from: Data("\"2\"".utf8)) }
    }

    @Test func anEnumOfOtherValuesIsADiagnosticAndStrictModeRefusesIt() throws {
        let data = Self.document(
            #""Ratio": {"type": "number", "enum": [0.5, 1.5]}, "Odd": {"type": "integer", "enum": [1, 2.5]}"#)
        let result = try Generator.generate(data)
        #expect(result.diagnostics.map(\.pointer) == ["#/components/schemas/Ratio", "#/components/schemas/Odd"])
        #expect(result.diagnostics.allSatisfy { $0.message.contains("enum") })
        #expect(try Self.file(result, "Ratio.swift").contains("typealias Ratio = Double"))
        #expect(throws: GeneratorError.self) { try Generator.generate(data, options: GeneratorOptions(strict: true)) }
    }

    @Test func anAllOfCycleIsDiagnosedAndEachMemberMergedOnce() throws {
        let result = try Generator.generate(GeneratorTests.fixture("names-3.1.json"))
        let pointers = result.diagnostics.filter { $0.message.contains("cycle") }.map(\.pointer)
        #expect(pointers.contains("#/components/schemas/CycleB/allOf/0"))
        #expect(pointers.contains("#/components/schemas/CycleA/allOf/0"))
        // Each schema's own properties once, in a struct that compiles.
        let cycle = try Self.coding.decode(CycleA.self, from: Data(#"{"a": "x", "b": "y"}"#.utf8))
        #expect(cycle == CycleA(b: "y", a: "x"))
        #expect(try Self.file(result, "CycleA.swift").components(separatedBy: "public var a: String?").count == 2)
        #expect(throws: GeneratorError.self) {
            try Generator.generate(GeneratorTests.fixture("names-3.1.json"), options: GeneratorOptions(strict: true))
        }
    }

    @Test func aReferenceCycleThatNamesNoSchemaIsDiagnosedAndKeptAsJSON() throws {
        let result = try Generator.generate(GeneratorTests.fixture("names-3.1.json"))
        let pointers = result.diagnostics.filter { $0.message.contains("cycle") }.map(\.pointer)
        #expect(pointers.contains("#/components/schemas/LoopA"))
        #expect(pointers.contains("#/components/schemas/LoopB"))
        #expect(LoopA.self == JSON.self)
        #expect(LoopB.self == JSON.self)
        // The two-schema `$ref` loop of the older test, too.
        let loop = try Generator.generate(
            Self.document(##""A": {"$ref": "#/components/schemas/B"}, "B": {"$ref": "#/components/schemas/A"}"##))
        #expect(loop.diagnostics.map(\.pointer) == ["#/components/schemas/A", "#/components/schemas/B"])
        #expect(try Self.file(loop, "A.swift").contains("typealias A = JSON"))
    }

    @Test func keywordsAndNamesThatAreNotIdentifiersCompileAndKeepTheirWireNames() throws {
        let text = #"""
            {"self": "s", "Self": "S", "init": 1, "Type": "t", "Protocol": "p", "default": true, "class": "c",
             "super": "u", "func": "f", "inout": "i", "Any": "y", "2fa": false, "a-b": "1", "a_b": "2", "aB": "3",
             "$ref": "r", "🎉": "party", "": "empty", "value": "v", "x y": {"inner": "in"}, "x_y": {"other": 5},
             "coding_keys": {"z": "z"}, "priority": 3, "flavor": "a_b"}
            """#
        let value = try Self.coding.decode(Awkward.self, from: Data(text.utf8))
        #expect(value.selfValue == "s")
        #expect(value.selfValue2 == "S")
        #expect(value.initValue == 1)
        #expect(value.type == "t")
        #expect(value.protocol == "p")
        #expect(value.default == true)
        #expect(value.class == "c")
        #expect(value.superValue == "u")
        #expect(value.func == "f")
        #expect(value.inout == "i")
        #expect(value.any == "y")
        #expect(value._2fa == false)
        #expect([value.aB, value.aB2, value.aB3] == ["3", "1", "2"])  // `aB` is already a Swift name: it keeps it
        #expect(value.ref == "r")
        #expect([value.value, value.value2, value.value3] == ["v", "party", "empty"])
        #expect(value.xY?.inner == "in")
        #expect(value.xY2?.other == 5)
        #expect(value.codingKeys?.z == "z")
        #expect(value.priority == .value3)
        #expect(value.flavor == .aB2)
        #expect(try JSON(data: Self.coding.encode(value)) == JSON(data: Data(text.utf8)))
        let made = Awkward(selfValue: "s", initValue: 2, protocol: "p", default: false, class: "c")
        #expect(
            try JSON(data: Self.coding.encode(made)) == [
                "self": "s", "init": 2, "Protocol": "p", "default": false, "class": "c",
            ])
    }

    @Test func duplicateEnumValuesAreOneCaseAndNamesThatSanitizeAlikeStayApart() throws {
        #expect(Flavor(rawValue: "a-b") == .aB)
        #expect(Flavor(rawValue: "a_b") == .aB2)
        #expect(Flavor.aB2.rawValue == "a_b")
        #expect(Flavor(rawValue: "unknown") == .unknownValue)
        #expect(Flavor(rawValue: "rawValue") == .rawValueValue)
        #expect(Flavor(rawValue: "self") == .selfValue)
        #expect(Flavor(rawValue: "init") == .initValue)
        #expect(Flavor(rawValue: "default") == .default)
        #expect(Flavor(rawValue: "") == .empty)
        #expect(Flavor(rawValue: "zzz") == .unknown("zzz"))
        let result = try Generator.generate(GeneratorTests.fixture("names-3.1.json"))
        let flavor = try Self.file(result, "Flavor.swift")
        #expect(flavor.components(separatedBy: "case \"a-b\":").count == 2)
        #expect(flavor.components(separatedBy: "    case aB").count == 3)  // aB and aB2, no third
        let priority = try Self.file(result, "Priority.swift")
        #expect(priority.components(separatedBy: "case 2:").count == 2)
        let duplicates = result.diagnostics.filter { $0.message.contains("more than once") }.map(\.pointer)
        #expect(duplicates == ["#/components/schemas/Priority", "#/components/schemas/Flavor"])
    }

    @Test func aYAMLAliasBombIsRefusedBeforeItIsExpanded() throws {
        // Billion laughs: nine levels of ten aliases each, 10^9 scalars once expanded.
        var lines = ["openapi: 3.1.0", "info: {title: t, version: '1'}", "paths: {}", "x-laughs:"]
        lines.append("  a: &a [" + Array(repeating: "lol", count: 10).joined(separator: ", ") + "]")
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        for index in names.indices.dropFirst() {
            let alias = "*" + names[index - 1]
            let row = Array(repeating: alias, count: 10).joined(separator: ", ")
            lines.append("  \(names[index]): &\(names[index]) [\(row)]")
        }
        let data = Data(lines.joined(separator: "\n").utf8)
        var unchecked = GeneratorOptions()
        unchecked.validates = false
        for options in [GeneratorOptions(), unchecked] {
            let error = #expect(throws: GeneratorError.self) { try Generator.generate(data, options: options) }
            #expect(error?.description.contains("alias") == true)
        }
        #expect(throws: GeneratorError.self) { try Generator.validate(data) }
    }

    @Test func aliasesOfAnOrdinarySizeStillWork() throws {
        let text = """
            openapi: 3.1.0
            info: {title: t, version: '1'}
            paths: {}
            components:
              schemas:
                Person: &person {type: object, properties: {name: {type: string}}}
                Author: *person
            """
        let result = try Generator.generate(Data(text.utf8))
        #expect(try Self.file(result, "Author.swift").contains("public var name: String?"))
    }

    @Test func anActionUnderAParentWithNoModelIsStillADiagnostic() throws {
        let ok =
            "{'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Book'}}}}}"
        let text = """
            openapi: 3.1.0
            info: {title: t, version: '1'}
            paths:
              /shelves/{shelf_id}/books/{id}:
                get: {responses: \(ok)}
              /shelves/{shelf_id}/books/{id}/lend:
                post: {responses: \(ok)}
              /shelves/{shelf_id}/books/count:
                get: {responses: \(ok)}
            components:
              schemas:
                Book: {type: object, properties: {id: {type: integer}, title: {type: string}}}
            """
        let result = try Generator.generate(Data(text.utf8))
        let actions = result.diagnostics.filter { $0.message.contains("an action of a nested collection") }
        #expect(
            actions.map(\.pointer).sorted() == [
                "#/paths/~1shelves~1{shelf_id}~1books~1count", "#/paths/~1shelves~1{shelf_id}~1books~1{id}~1lend",
            ])
        #expect(try !Self.file(result, "Book.swift").contains("func lend"))
    }
}
