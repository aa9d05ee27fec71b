import CRUDKit
import CRUDKitOpenAPI
import Foundation
import OpenAPISnapshotUnusual31
import Testing

/// Schemas named like the types generated code uses (`String`, `Readable`, `APIDocument`), names that collide
/// (after sanitizing, by case, with nested and alias types), keys and enum values that are not identifiers,
/// `$ref`s to nowhere, outside the document or back into themselves, and path templates CRUDKit cannot address:
/// the `unusual-3.1.json` fixture's output is the compiled `OpenAPISnapshotUnusual31` target, so each of them
/// generates code that compiles, and what cannot be expressed is a diagnostic.
@Suite struct UnusualDocumentTests {
    static let coding = JSONCoding.camelCase

    static func generated() throws -> GenerationResult {
        try Generator.generate(GeneratorTests.fixture("unusual-3.1.json"))
    }

    @Test func theUnusualDocumentMatchesItsCompiledSnapshot() throws {
        let result = try Self.generated()
        let expected = try GeneratorTests.snapshot("Unusual31")
        #expect(result.files.map(\.name) == expected.keys.sorted())
        for file in result.files {
            #expect(file.contents == expected[file.name], "\(file.name) differs from Tests/Snapshots/Unusual31")
        }
    }

    @Test func schemasNamedLikeTheTypesGeneratedCodeUsesGetValueAppended() throws {
        let text =
            #"{"r_string": {"name": "a", "born": "2026-12-02"}, "r_readable": {"count": 2}, "plain_string": "s","#
            + #" "plain_int": 3, "r_apidocument": {"name": "d"}, "r_self": {"name": "me"}}"#
        let value = try Self.coding.decode(UsesReserved.self, from: Data(text.utf8))
        #expect(value.rString?.name == "a")
        #expect(value.rString?.born == CalendarDate(year: 2026, month: 12, day: 2))
        #expect(value.rReadable?.count == 2)
        #expect(value.rApidocument?.name == "d")
        #expect(value.rSelf?.name == "me")
        let plain: Swift.String? = value.plainString
        let count: Swift.Int? = value.plainInt
        #expect(plain == "s" && count == 3)
        let files = try Self.generated().files.map(\.name)
        #expect(files.contains("StringValue.swift") && files.contains("ReadableValue.swift"))
        #expect(files.contains("APIDocumentValue.swift") && files.contains("APIDocument.swift"))
    }

    @Test func namesThatCollideStayApart() throws {
        let files = try Self.generated().files.map(\.name)
        // `a-b`, `a_b`, `a.b` are one Swift name; `ABc` and `Abc` are one file name on macOS.
        #expect(files.contains("AB.swift") && files.contains("AB2.swift") && files.contains("AB3.swift"))
        #expect(files.contains("ABc.swift") && files.contains("Abc2.swift"))
        #expect(files.contains("ApiDocument2.swift"))
        // A nested type never hides a component a property names (`owner: Person`).
        let text =
            #"{"owner": {"id": 1, "name": "Ada"}, "person": {"inline": "x"}, "tag": {"one": "1"}, "#
            + #""tags": [{"many": "2"}], "strings": [{"text": "t"}], "string": {"inner": "i"}}"#
        let holder = try Self.coding.decode(Holder.self, from: Data(text.utf8))
        let owner: Person? = holder.owner
        #expect(owner?.name == "Ada")
        #expect(holder.person?.inline == "x")
        #expect(holder.tag?.one == "1" && holder.tags?.first?.many == "2")
        #expect(holder.strings?.first?.text == "t" && holder.string?.inner == "i")
    }

    @Test func aModelsIDIsThePathParameterOrAStoredIDWhenTheSchemasCannotBeOne() throws {
        let keyed = try Self.coding.decode(Keyed.self, from: Data(#"{"pk": 7, "id": "x", "name": "k"}"#.utf8))
        #expect(keyed.id == 7)
        #expect(keyed.idValue == "x")
        let mongo = try Self.coding.decode(Mongo.self, from: Data(#"{"_id": "64f0", "name": "m"}"#.utf8))
        #expect(mongo.id == "64f0")
        let object = try Self.coding.decode(ObjectID.self, from: Data(#"{"id": {"oid": "1"}, "name": "o"}"#.utf8))
        #expect(object.id == nil)
        #expect(object.idValue?.oid == "1")
        #expect(try JSON(data: Self.coding.encode(object)) == ["id": ["oid": "1"], "name": "o"])
    }

    @Test func oddKeysAndEnumValuesKeepTheirWireSpelling() throws {
        let text =
            #"{"say \"hi\"": "1", "back\\slash": "2", "new\nline": "3", "true": true, "hashValue": "h", "#
            + #""-1": 4, "1": 5, "additionalProperties": "a", "more": 6, "container": "c", "encoder": "e"}"#
        let value = try Self.coding.decode(OddKeys.self, from: Data(text.utf8))
        #expect(value.sayHi == "1" && value.backSlash == "2" && value.newLine == "3")
        #expect(value.true == true && value.hashValueValue == "h")
        #expect(value.additionalPropertiesValue == "a" && value.additionalProperties == ["more": 6])
        #expect(value.container == "c" && value.encoder == "e")
        #expect(try JSON(data: Self.coding.encode(value)) == JSON(data: Data(text.utf8)))
        #expect(OddEnum(rawValue: "new\nline").rawValue == "new\nline")
        #expect(OddEnum(rawValue: "a\"b") != OddEnum(rawValue: "a\\b"))
        #expect(BigEnum(rawValue: Int.max).rawValue == Int.max)
        #expect(BigEnum(rawValue: Int.min).rawValue == Int.min)
        #expect(BigEnum(rawValue: 5) == .unknown(5))
    }

    @Test func referencesToNowhereOrBackIntoThemselvesAreDiagnosedAndKeptAsJSON() throws {
        let result = try Self.generated()
        let pointers = Set(result.diagnostics.map(\.pointer))
        for property in ["missing", "nowhere", "external", "remote", "escaped", "root"] {
            #expect(pointers.contains("#/components/schemas/Refs/properties/\(property)"), "\(property)")
        }
        let kid = result.diagnostics.first { $0.pointer == "#/components/schemas/Refs/properties/kid/properties/up" }
        #expect(kid?.message.contains("contains this reference") == true)
        #expect(pointers.contains("#/components/schemas/ExternalAlias"))
        #expect(ExternalAlias.self == JSON?.self)
    }

    @Test func pathTemplatesCRUDKitCannotAddressAreDiagnosedNotGuessed() throws {
        let result = try Self.generated()
        let pointers = Set(result.diagnostics.map(\.pointer))
        for path in ["/reports/{id}.json", "/people/{id}:activate", "/people/{id}/{field}", "/{id}", "/a/{x}/{y}", "/"]
        {
            #expect(pointers.contains(Pointer.join("#/paths", path)), "\(path)")
        }
        #expect(!result.files.contains { $0.name.hasPrefix("Report") })
    }
}

/// RFC 6901 escaping of a path for the expected pointers.
private enum Pointer {
    static func join(_ base: String, _ token: String) -> String {
        base + "/" + token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}
