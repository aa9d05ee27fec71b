import Foundation

extension SchemaMapper {
    /// The Swift type of a schema used in place (a property, an item, a body), declaring inline objects, enums
    /// and unions as nested types named from `hint`.
    func type(for schema: Node, pointer: String, hint: String, nested: inout [Declaration]) -> MappedType {
        guard inlineDepth < inlineDepthLimit else {
            note(
                pointer,
                "schemas nested more than \(inlineDepthLimit) deep (inline, or through $refs outside "
                    + "components/schemas that lead back into themselves); the value is kept as JSON")
            return MappedType(type: "JSON", nullable: true)
        }
        inlineDepth += 1
        defer { inlineDepth -= 1 }
        let nullable = isNullable(schema)
        if let reference = schema["$ref"]?.string {
            if let key = componentKey(ofReference: reference) {
                let target = componentSchema(key) ?? .object([])
                return MappedType(type: declareComponent(key), nullable: nullable || isNullable(target))
            }
            let (target, targetPointer) = resolve(schema, pointer: pointer)
            if target.members.isEmpty { return MappedType(type: "JSON", nullable: true) }
            // A schema that is not a component is expanded where it is used; one that contains the reference
            // (`#/components/schemas/A/properties/kid` used inside `kid`) would be expanded forever.
            if expanding.contains(targetPointer) || pointer.hasPrefix(targetPointer + "/") {
                note(
                    pointer,
                    "$ref \(reference) names a schema that contains this reference and is not a component; the "
                        + "value is kept as JSON (make the schema a component to get a recursive type)")
                return MappedType(type: "JSON", nullable: true)
            }
            expanding.insert(targetPointer)
            defer { expanding.remove(targetPointer) }
            return type(for: target, pointer: targetPointer, hint: hint, nested: &nested)
        }
        if let allOf = schema["allOf"]?.items, allOf.count == 1, schema["properties"] == nil {
            var inner = type(for: allOf[0], pointer: Pointer.join(pointer, "allOf", "0"), hint: hint, nested: &nested)
            inner.nullable = inner.nullable || nullable
            return inner
        }
        if isObjectLike(schema) {
            let structure = structure(named: hint, schema: schema, pointer: pointer, componentKey: nil)
            nested.append(.structure(structure))
            return MappedType(type: hint, nullable: nullable)
        }
        if let (values, integer) = enumeration(schema, pointer: pointer) {
            nested.append(
                .stringEnum(
                    StringEnum(
                        name: hint, description: schema["description"]?.string, values: values, integer: integer)))
            return MappedType(type: hint, nullable: nullable || schema["enum"]?.items.contains(where: \.isNull) == true)
        }
        if schema["oneOf"] != nil || schema["anyOf"] != nil {
            return alternatives(schema, pointer: pointer, hint: hint, nullable: nullable, nested: &nested)
        }
        if schema["not"] != nil {
            note(pointer, "`not` is not expressible in Swift; the value is kept as JSON")
            return MappedType(type: "JSON", nullable: true)
        }
        let types = typeNames(schema).filter { $0 != "null" }
        if let values = schema["enum"]?.items, values.contains(where: { !$0.isNull }) {
            note(
                pointer,
                "an enum whose values are not all strings or all integers (Int) is not checked; the value is kept as "
                    + "its type (\(types.first ?? "any JSON"))")
        }
        if types.count > 1 {
            note(pointer, "a value of several types (\(types.joined(separator: ", "))) is kept as JSON")
            return MappedType(type: "JSON", nullable: true)
        }
        let format = schema["format"]?.string
        switch types.first {
        case "string": return MappedType(type: stringType(format: format, pointer: pointer), nullable: nullable)
        case "integer":
            switch format {
            case "int64": return MappedType(type: "Int64", nullable: nullable)
            case "int32": return MappedType(type: "Int32", nullable: nullable)
            default: return MappedType(type: "Int", nullable: nullable)
            }
        case "number":
            switch format {
            case "decimal": return MappedType(type: "Decimal", nullable: nullable)
            case "float": return MappedType(type: "Float", nullable: nullable)
            default: return MappedType(type: "Double", nullable: nullable)
            }
        case "boolean": return MappedType(type: "Bool", nullable: nullable)
        case "array":
            guard let items = schema["items"] else { return MappedType(type: "[JSON]", nullable: nullable) }
            var itemHint = hint
            if itemHint.hasSuffix("s"), itemHint.count > 1 { itemHint = SwiftNames.singular(itemHint) }
            if itemHint == hint || !isFreeHint(itemHint, nested: nested) { itemHint = hint + "Item" }
            itemHint = freeHint(itemHint, nested: nested)
            let item = type(for: items, pointer: Pointer.join(pointer, "items"), hint: itemHint, nested: &nested)
            return MappedType(type: "[\(item.nullable ? item.type + "?" : item.type)]", nullable: nullable)
        case "object", nil:
            if let extra = schema["additionalProperties"], extra.string != "false", !extra.members.isEmpty {
                let value = type(
                    for: extra, pointer: Pointer.join(pointer, "additionalProperties"),
                    hint: freeHint(hint + "Value", nested: nested), nested: &nested)
                return MappedType(
                    type: "[String: \(value.nullable ? value.type + "?" : value.type)]", nullable: nullable)
            }
            if types.first == "object" { return MappedType(type: "[String: JSON]", nullable: nullable) }
            // No type at all: any JSON value.
            return MappedType(type: "JSON", nullable: true)
        case let other?:
            note(pointer, "unknown type \"\(other)\"; the value is kept as JSON")
            return MappedType(type: "JSON", nullable: true)
        }
    }

    /// Whether a nested type may take a name derived from its holder's (`Tag` for the items of `tags`): not a
    /// keyword or a name the generated code uses, not a component's (it would hide the component), and not a type
    /// already nested beside it.
    func isFreeHint(_ name: String, nested: [Declaration]) -> Bool {
        !SwiftNames.keywords.contains(name) && !SwiftNames.reservedTypeNames.contains(name)
            && !componentTypeNames.contains(name) && !nested.contains { $0.name == name }
    }

    /// `name`, or `name` with the first number from 2 that makes it free (``isFreeHint(_:nested:)``).
    func freeHint(_ name: String, nested: [Declaration]) -> String {
        if isFreeHint(name, nested: nested) { return name }
        var counter = 2
        while !isFreeHint(name + "\(counter)", nested: nested) { counter += 1 }
        return name + "\(counter)"
    }

    func stringType(format: String?, pointer: String) -> String {
        switch format {
        case "date-time": return "Date"
        case "date":
            needsCalendarDateFlag()
            return "CalendarDate"
        case "uuid": return "UUID"
        case "decimal": return "Decimal"
        default: return "String"
        }
    }

    /// `oneOf`/`anyOf`: `null` members make the value nullable; one member left is that member's type; a number
    /// or a string (pydantic's `Decimal`) is a `Decimal`; a discriminator makes an enum with payloads; anything
    /// else is kept as JSON, with a diagnostic.
    func alternatives(
        _ schema: Node, pointer: String, hint: String, nullable: Bool, nested: inout [Declaration]
    ) -> MappedType {
        let keyword = schema["oneOf"] != nil ? "oneOf" : "anyOf"
        let all = schema[keyword]?.items ?? []
        let members = all.enumerated().filter { !isNullSchema($0.element) && !isBlankSchema($0.element) }
        if members.count == 1 {
            let (index, member) = members[0]
            var mapped = type(
                for: member, pointer: Pointer.join(pointer, keyword, String(index)), hint: hint,
                nested: &nested)
            mapped.nullable = mapped.nullable || nullable
            return mapped
        }
        // Members that all read as the same plain type (DRF's `email`: an email string or an empty one) are it.
        var scratch: [Declaration] = []
        let mappedMembers = members.map {
            type(
                for: $0.element, pointer: Pointer.join(pointer, keyword, String($0.offset)), hint: hint,
                nested: &scratch)
        }
        if scratch.isEmpty, let first = mappedMembers.first, mappedMembers.allSatisfy({ $0.type == first.type }),
            first.type != "JSON"
        {
            return MappedType(type: first.type, nullable: nullable || mappedMembers.contains { $0.nullable })
        }
        let kinds = Set(members.map { typeNames(resolve($0.element, pointer: pointer).node).first ?? "" })
        if kinds == ["number", "string"] || kinds == ["integer", "number", "string"] {
            return MappedType(type: "Decimal", nullable: nullable)
        }
        if schema["discriminator"] != nil, let union = union(named: hint, schema: schema, pointer: pointer) {
            nested.append(.union(union))
            return MappedType(type: hint, nullable: nullable)
        }
        note(pointer, "\(keyword) without a discriminator is kept as JSON (read it with `JSON`'s accessors)")
        return MappedType(type: "JSON", nullable: true)
    }

    /// A discriminated `oneOf`/`anyOf` of `$ref`s as an enum with one case per schema, plus `unknown`.
    func union(named name: String, schema: Node, pointer: String) -> Union? {
        guard let discriminator = schema["discriminator"], let key = discriminator["propertyName"]?.string else {
            return nil
        }
        let keyword = schema["oneOf"] != nil ? "oneOf" : "anyOf"
        var cases: [UnionCase] = []
        var mapping: [(String, String)] =
            discriminator["mapping"]?.members.compactMap { member in
                member.value.string.map { (member.key, $0) }
            } ?? []
        if mapping.isEmpty {
            for member in schema[keyword]?.items ?? [] {
                guard let reference = member["$ref"]?.string, let key = componentKey(ofReference: reference) else {
                    note(
                        pointer,
                        "a \(keyword) member that is not a $ref cannot be told apart by its discriminator; "
                            + "its values decode as `unknown`")
                    continue
                }
                mapping.append((key, reference))
            }
        }
        var used = UniqueNames()
        for (value, reference) in mapping {
            guard let key = componentKey(ofReference: reference) else {
                note(
                    pointer,
                    "discriminator value \"\(value)\" maps to \(reference), which is not a component schema; "
                        + "it decodes as `unknown`")
                continue
            }
            var caseName = SwiftNames.caseName(value)
            let bare = SwiftNames.bare(caseName)
            let claimed = used.claim(bare)
            if claimed != bare { caseName = SwiftNames.escaped(claimed) }
            cases.append(UnionCase(value: value, name: caseName, type: declareComponent(key)))
        }
        guard !cases.isEmpty else { return nil }
        return Union(name: name, description: schema["description"]?.string, key: key, cases: cases)
    }
}
