import Foundation

/// A schema's Swift type: the type's name and whether the schema also allows `null`.
struct MappedType: Sendable, Hashable {
    var type: String
    var nullable: Bool
}

/// Turns the schemas of a document into ``Declaration``s and Swift type names, recording a ``Diagnostic`` for
/// each construct it cannot express as written.
final class SchemaMapper {
    let root: Node
    private(set) var diagnostics: [Diagnostic] = []
    /// Top-level declarations by component key.
    private(set) var declarations: [String: Declaration] = [:]
    /// The Swift name of each component schema, fixed up front so names never depend on the order of use.
    private(set) var componentNames: [String: String] = [:]
    /// Extra properties a resource's request schema adds to its read schema, by component key.
    var requestSchemas: [String: String] = [:]
    /// The resource each component is the model of.
    var resources: [String: ResourceInfo] = [:]
    private var inProgress: Set<String> = []
    /// The shared support types the generated code needs (`CalendarDate`, `AnyCodingKey`).
    private(set) var needsCalendarDate = false
    func needsCalendarDateFlag() { needsCalendarDate = true }
    /// The deepest `$ref` chain followed; a longer one is a cycle of references.
    private let referenceLimit = 64
    /// The most schemas mapped inside one another (inline, or through `$ref`s to schemas that are not components,
    /// which are expanded where they are used): a reference that leads back into the schema that holds it
    /// (`#/components/schemas/A/properties/kid` inside `kid`) would otherwise be expanded forever.
    let inlineDepthLimit = 32
    /// How many schemas ``type(for:pointer:hint:nested:)`` is inside now.
    var inlineDepth = 0
    /// The schemas outside components/schemas being expanded where a `$ref` uses them, by pointer.
    var expanding: Set<String> = []

    /// The component schemas by key, indexed once: a lookup per `$ref` would otherwise scan them all, and a large
    /// document (or a long chain of references) would take time quadratic in its number of schemas. A key written
    /// twice keeps its first schema, as a lookup in the object does.
    private let componentSchemas: [String: Node]
    /// The component keys in document order.
    let componentKeys: [String]
    /// The Swift names of the components, which a nested type must not take (it would hide the component from the
    /// properties of the struct that holds it).
    let componentTypeNames: Set<String>

    init(root: Node) {
        self.root = root
        let members = root["components"]?["schemas"]?.members ?? []
        var schemas: [String: Node] = [:]
        var keys: [String] = []
        var names = UniqueNames()
        for member in members where schemas[member.key] == nil {
            schemas[member.key] = member.value
            keys.append(member.key)
            componentNames[member.key] = names.claim(SwiftNames.typeName(member.key))
        }
        componentSchemas = schemas
        componentKeys = keys
        componentTypeNames = names.used
    }

    /// The schema of a component, by key.
    func componentSchema(_ key: String) -> Node? { componentSchemas[key] }

    func setDeclaration(_ declaration: Declaration, for key: String) { declarations[key] = declaration }

    func note(_ pointer: String, _ message: String) {
        diagnostics.append(Diagnostic(pointer: pointer, message: message))
    }

    // MARK: - References

    /// `#/components/schemas/Person` → `Person`.
    func componentKey(ofReference reference: String) -> String? {
        let prefix = "#/components/schemas/"
        guard reference.hasPrefix(prefix) else { return nil }
        let key = Pointer.unescape(String(reference.dropFirst(prefix.count)))
        return componentNames[key] == nil ? nil : key
    }

    /// The node a JSON pointer inside this document names.
    func node(at reference: String) -> Node? {
        guard reference.hasPrefix("#") else { return nil }
        var current = root
        var tokens = reference.dropFirst().split(separator: "/", omittingEmptySubsequences: true)[...]
        // Inside a component (`#/components/schemas/Person/properties/name`), start from the indexed schema.
        if tokens.count >= 3, tokens[0] == "components", tokens[1] == "schemas",
            let schema = componentSchemas[Pointer.unescape(String(tokens[2]))]
        {
            current = schema
            tokens = tokens.dropFirst(3)
        }
        for token in tokens {
            let key = Pointer.unescape(String(token))
            if case .array(let items) = current, let index = Int(key), items.indices.contains(index) {
                current = items[index]
            } else if let next = current[key] {
                current = next
            } else {
                return nil
            }
        }
        return current
    }

    /// Follows `$ref`s to the schema they name (at most ``referenceLimit``), with its pointer; `notes` false
    /// when the caller only looks (the place that uses the schema notes what is wrong with it).
    func resolve(_ node: Node, pointer: String, notes: Bool = true) -> (node: Node, pointer: String) {
        var current = (node: node, pointer: pointer)
        for _ in 0..<referenceLimit {
            guard let reference = current.node["$ref"]?.string else { return current }
            guard let target = self.node(at: reference) else {
                if notes {
                    note(
                        current.pointer,
                        "$ref \(reference) does not resolve in this document; the value is kept as JSON")
                }
                return (.object([]), current.pointer)
            }
            current = (target, reference)
        }
        if notes { note(pointer, "$ref chain longer than \(referenceLimit); the value is kept as JSON") }
        return (.object([]), pointer)
    }

    // MARK: - Components

    /// The Swift name of a component, declaring it the first time. A component met while another is being
    /// declared is queued and declared by the outermost call, so that a long chain of components naming each
    /// other (`S0: {$ref: S1}`, `S1: {$ref: S2}`, …) does not deepen the stack.
    func declareComponent(_ key: String) -> String {
        let name = componentNames[key] ?? SwiftNames.typeName(key)
        guard declarations[key] == nil, !inProgress.contains(key) else { return name }
        if !inProgress.isEmpty {
            queuedComponents.append(key)
            return name
        }
        queuedComponents = [key]
        var index = 0
        defer { queuedComponents = [] }
        while index < queuedComponents.count {
            let next = queuedComponents[index]
            index += 1
            guard declarations[next] == nil,
                let schema = componentSchema(next)
            else { continue }
            inProgress.insert(next)
            let pointer = Pointer.join("#/components/schemas", next)
            let nextName = componentNames[next] ?? SwiftNames.typeName(next)
            declarations[next] = declaration(named: nextName, schema: schema, pointer: pointer, componentKey: next)
            inProgress.remove(next)
        }
        return name
    }

    /// Components met while another was being declared, declared next by the outermost ``declareComponent(_:)``.
    private var queuedComponents: [String] = []

    /// The declaration of a named schema: a struct for an object, an enum for a string enum or a discriminated
    /// union, and a type alias for anything else.
    func declaration(named name: String, schema: Node, pointer: String, componentKey: String?) -> Declaration {
        let description = schema["description"]?.string ?? schema["title"]?.string
        if isObjectLike(schema) {
            return .structure(structure(named: name, schema: schema, pointer: pointer, componentKey: componentKey))
        }
        if let (values, integer) = enumeration(schema, pointer: pointer) {
            return .stringEnum(StringEnum(name: name, description: description, values: values, integer: integer))
        }
        if let union = union(named: name, schema: schema, pointer: pointer) {
            return .union(union)
        }
        if let componentKey, let cycle = referenceCycle(from: componentKey) {
            let names = (cycle + [componentKey]).joined(separator: " → ")
            note(pointer, "$ref/allOf cycle (\(names)) that names no schema of its own; the value is kept as JSON")
            return .alias(name: name, type: "JSON", description: description)
        }
        var nested: [Declaration] = []
        let mapped = type(for: schema, pointer: pointer, hint: freeTopLevelName(name + "Value"), nested: &nested)
        // An alias cannot hold nested types; they are declared beside it under their own names.
        addExtraDeclarations(nested)
        return .alias(name: name, type: mapped.nullable ? mapped.type + "?" : mapped.type, description: description)
    }

    /// Declarations made beside an alias (its inline types) or for a custom action (its body and result types).
    private(set) var extraDeclarations: [Declaration] = []
    /// The names taken at the top level: components, resources and ``extraDeclarations``.
    private var topLevelNames: Set<String> = []

    /// Claims a top-level name (a resource's that is not a component's).
    func claimTopLevelName(_ name: String) { topLevelNames.insert(name) }

    /// `base`, or `base` with the first number from 2 that no top-level type, keyword or name the generated code
    /// uses has: the name of a type declared at the top level beside an alias or for an action.
    func freeTopLevelName(_ base: String) -> String {
        func taken(_ name: String) -> Bool {
            topLevelNames.contains(name) || componentTypeNames.contains(name)
                || SwiftNames.reservedTypeNames.contains(name) || SwiftNames.keywords.contains(name)
        }
        guard taken(base) else { return base }
        var counter = 2
        while taken(base + "\(counter)") { counter += 1 }
        return base + "\(counter)"
    }

    /// Declares `declarations` at the top level and claims their names.
    func addExtraDeclarations(_ declarations: [Declaration]) {
        for declaration in declarations {
            extraDeclarations.append(declaration)
            topLevelNames.insert(declaration.name)
        }
    }

    /// The components a schema that is only a reference (a `$ref`, or an `allOf` of one member) leads through back
    /// to itself, or `nil` when it reaches a schema of its own: such a cycle would be type aliases of each other.
    func referenceCycle(from key: String) -> [String]? {
        guard let cycle = referenceCycles[key], let start = cycle.firstIndex(of: key) else { return nil }
        return Array(cycle[start...] + cycle[..<start])
    }

    /// The component a component's schema is only a reference to (through `$ref`, or `allOf` of one member), if
    /// any.
    private func referenceTarget(of key: String) -> String? {
        guard var schema = componentSchema(key) else { return nil }
        for _ in 0..<referenceLimit {
            if schema["properties"] != nil { return nil }
            let next: Node
            if schema["$ref"] != nil {
                next = schema
            } else if let allOf = schema["allOf"]?.items, allOf.count == 1 {
                next = allOf[0]
            } else {
                return nil
            }
            if let reference = next["$ref"]?.string {
                guard let target = componentKey(ofReference: reference), componentSchema(target) != nil else {
                    return nil
                }
                return target
            }
            schema = next
        }
        return nil
    }

    /// The cycles of components that are only references to each other (each at most ``referenceLimit`` long),
    /// by member: found once for the whole document, each component visited once (each has at most one target),
    /// so that a long chain (`S0 → S1 → … → S10000`) is not walked again from each of its links.
    private lazy var referenceCycles: [String: [String]] = {
        var cycles: [String: [String]] = [:]
        var done: Set<String> = []
        for start in self.componentKeys where !done.contains(start) {
            var path: [String] = []
            var positions: [String: Int] = [:]
            var current: String? = start
            while let key = current, !done.contains(key), positions[key] == nil {
                positions[key] = path.count
                path.append(key)
                current = self.referenceTarget(of: key)
            }
            if let key = current, let position = positions[key] {
                let cycle = Array(path[position...])
                if cycle.count <= self.referenceLimit {
                    for member in cycle { cycles[member] = cycle }
                }
            }
            done.formUnion(path)
        }
        return cycles
    }()

    // MARK: - Objects

    func isObjectLike(_ schema: Node) -> Bool {
        if schema["$ref"] != nil { return false }
        if let allOf = schema["allOf"]?.items, allOf.count > 1 || schema["properties"] != nil { return true }
        if let allOf = schema["allOf"]?.items, allOf.count == 1 { return false }
        let types = typeNames(schema)
        if schema["properties"] != nil { return types.isEmpty || types.contains("object") }
        return false
    }

    /// The schema's `type` as a list (`"string"` or `["string", "null"]`).
    func typeNames(_ schema: Node) -> [String] {
        if let single = schema["type"]?.string { return [single] }
        return schema["type"]?.items.compactMap { $0.isNull ? "null" : $0.string } ?? []
    }

    struct ObjectMember {
        var key: String
        var schema: Node
        var pointer: String
        var required: Bool
    }

    /// The properties of an object schema with `allOf` members merged in order, their `required` lists joined.
    /// `notes` false when the caller only looks (the conventions detector), not generates.
    func members(
        of schema: Node, pointer: String, notes: Bool = true
    ) -> (members: [ObjectMember], additional: (Node, String)?) {
        var result: [ObjectMember] = []
        var additional: (Node, String)?
        var required: Set<String> = []
        // Each entry carries the schemas that include it, so that a cycle (A allOf B, B allOf A) is seen.
        var pending: [(node: Node, pointer: String, including: [String])] = [(schema, pointer, [])]
        var visited = 0
        var order: [(Node, String)] = []
        // Flatten allOf (depth first, in order) without recursion.
        while let (node, at, including) = pending.popLast() {
            visited += 1
            if visited > 4096 {
                if notes {
                    note(pointer, "allOf includes more than 4096 schemas; the members after those are not merged")
                }
                break
            }
            let (resolved, resolvedPointer) = resolve(node, pointer: at, notes: notes)
            if including.contains(resolvedPointer) {
                if notes { note(at, "allOf cycle: \(resolvedPointer) includes itself; its members are merged once") }
                continue
            }
            order.append((resolved, resolvedPointer))
            for (index, member) in (resolved["allOf"]?.items ?? []).enumerated().reversed() {
                pending.append(
                    (member, Pointer.join(resolvedPointer, "allOf", String(index)), including + [resolvedPointer]))
            }
        }
        var indices: [String: Int] = [:]
        for (node, at) in order {
            for name in node["required"]?.items.compactMap(\.string) ?? [] { required.insert(name) }
            for member in node["properties"]?.members ?? [] {
                let memberPointer = Pointer.join(at, "properties", member.key)
                if let index = indices[member.key] {
                    result[index].schema = member.value
                    result[index].pointer = memberPointer
                } else {
                    indices[member.key] = result.count
                    result.append(
                        ObjectMember(key: member.key, schema: member.value, pointer: memberPointer, required: false))
                }
            }
            if let extra = node["additionalProperties"], extra.string != "false" {
                additional = (extra, Pointer.join(at, "additionalProperties"))
            }
            if node["oneOf"] != nil || node["anyOf"] != nil, node["properties"] != nil || node["allOf"] != nil {
                note(at, "oneOf/anyOf inside an object with properties is not merged; only the properties are kept")
            }
        }
        for index in result.indices { result[index].required = required.contains(result[index].key) }
        return (result, additional)
    }

    func structure(
        named name: String, schema: Node, pointer: String, componentKey: String?, resource: ResourceInfo? = nil,
        requestKey: String? = nil
    ) -> Structure {
        let description = schema["description"]?.string ?? schema["title"]?.string
        let (readMembers, additional) = members(of: schema, pointer: pointer)
        // A resource whose writes use another schema (DRF's PersonRequest, FastAPI's PersonIn) sends that
        // schema's fields: members only there are added, written and never read back.
        var requestMembers: [ObjectMember]?
        if let key = componentKey, let requestKey = requestKey ?? requestSchemas[key], requestKey != key,
            let requestSchema = componentSchema(requestKey)
        {
            requestMembers =
                members(of: requestSchema, pointer: Pointer.join("#/components/schemas", requestKey))
                .members
        }
        var nested: [Declaration] = []
        var properties: [Property] = []
        // A key that is already its Swift name (`aB`, `value`) keeps it; keys that make the same name (`a-b`, `a_b`,
        // `🎉`) are numbered after it.
        let spelledAsSwift = Set(
            (readMembers + (requestMembers ?? [])).map(\.key).filter {
                SwiftNames.bare(SwiftNames.propertyName($0)) == $0
                    && !(additional != nil && $0 == "additionalProperties")
            })
        var usedNames = UniqueNames(spelledAsSwift)
        func uniqueName(_ key: String) -> String {
            var name = SwiftNames.propertyName(key)
            if spelledAsSwift.contains(key) { return name }
            if SwiftNames.bare(name) == "additionalProperties" && additional != nil { name += "Value" }
            let bare = SwiftNames.bare(name)
            let claimed = usedNames.claim(bare)
            return claimed == bare ? name : SwiftNames.escaped(claimed)
        }
        // Nested types are named from their keys; two keys that make one name (`x y`, `x_y`) get two types, and
        // none hides the struct's own `CodingKeys` or a component's type that a property may name.
        var nestedNames: Set<String> = []
        var hints = UniqueNames()
        func uniqueHint(_ key: String) -> String {
            var hint = SwiftNames.typeName(key)
            if hint == name { hint += "Value" }
            return hints.free(hint) {
                $0 == "CodingKeys" || $0 == name || nestedNames.contains($0) || componentTypeNames.contains($0)
            }
        }
        func mapType(_ schema: Node, pointer: String, hint: String) -> MappedType {
            let before = nested.count
            let mapped = type(for: schema, pointer: pointer, hint: hint, nested: &nested)
            for declaration in nested[before...] { nestedNames.insert(declaration.name) }
            return mapped
        }
        let requestByKey = Dictionary(
            (requestMembers ?? []).map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let readKeys = Set(readMembers.map(\.key))
        for member in readMembers {
            let hint = uniqueHint(member.key)
            var mapped = mapType(member.schema, pointer: member.pointer, hint: hint)
            var flags = permissions(member.schema)
            var encoded = !flags.readOnly
            var required = member.required
            var nullable = mapped.nullable
            if requestMembers != nil {
                if let requestMember = requestByKey[member.key] {
                    encoded = !flags.readOnly && !permissions(requestMember.schema).readOnly
                    let requestNullable = isNullable(requestMember.schema)
                    nullable = nullable || requestNullable
                    required = required && requestMember.required
                    // FastAPI reads a Decimal as a number or a string and writes it as a string.
                    var scratch: [Declaration] = []
                    let written = type(
                        for: requestMember.schema, pointer: requestMember.pointer, hint: hint, nested: &scratch)
                    if mapped.type == "String", written.type == "Decimal" { mapped.type = "Decimal" }
                } else {
                    // Not in what writes send: the server's own, as if readOnly (FastAPI marks nothing readOnly).
                    encoded = false
                    flags.readOnly = true
                }
            }
            let shape = Self.shape(
                required: required, nullable: nullable, readOnly: flags.readOnly, writeOnly: flags.writeOnly)
            properties.append(
                Property(
                    key: member.key, name: uniqueName(member.key), type: mapped.type, shape: shape,
                    description: member.schema["description"]?.string
                        ?? resolve(member.schema, pointer: member.pointer).node["description"]?.string,
                    decoded: !flags.writeOnly, encoded: encoded))
        }
        for member in requestMembers ?? [] where !readKeys.contains(member.key) {
            let flags = permissions(member.schema)
            if flags.readOnly { continue }
            let hint = uniqueHint(member.key)
            let mapped = mapType(member.schema, pointer: member.pointer, hint: hint)
            let shape = Self.shape(
                required: member.required, nullable: mapped.nullable, readOnly: false, writeOnly: true)
            properties.append(
                Property(
                    key: member.key, name: uniqueName(member.key), type: mapped.type, shape: shape,
                    description: member.schema["description"]?.string, decoded: false, encoded: true))
        }
        var additionalType: String?
        if let (extra, extraPointer) = additional {
            if extra.string == "true" || extra.members.isEmpty {
                additionalType = "JSON"
            } else {
                let mapped = type(for: extra, pointer: extraPointer, hint: name + "Value", nested: &nested)
                additionalType = mapped.nullable ? mapped.type + "?" : mapped.type
            }
            usedNames.insert("additionalProperties")
        }
        return Structure(
            name: name, description: description, properties: properties, nested: nested,
            additionalType: additionalType, resource: resource ?? componentKey.flatMap { resources[$0] })
    }

    /// `readOnly`/`writeOnly` on the property or on the `allOf` wrapper around its `$ref` (drf-spectacular's form).
    func permissions(_ schema: Node) -> (readOnly: Bool, writeOnly: Bool) {
        (schema["readOnly"]?.bool ?? false, schema["writeOnly"]?.bool ?? false)
    }

    static func shape(required: Bool, nullable: Bool, readOnly: Bool, writeOnly: Bool) -> PropertyShape {
        switch (required, nullable) {
        case (true, false): readOnly || writeOnly ? .optional : .value
        case (true, true): .nullable
        case (false, false): .optional
        case (false, true): .attribute
        }
    }

    // MARK: - Null

    /// Whether a schema allows `null`: 3.0 `nullable: true`, 3.1 `type: [T, "null"]`, or a `null` member of
    /// `oneOf`/`anyOf` (a `{type: null}`, or drf-spectacular's `NullEnum`).
    func isNullable(_ schema: Node) -> Bool {
        if schema["nullable"]?.bool == true { return true }
        if typeNames(schema).contains("null") { return true }
        for member in (schema["oneOf"]?.items ?? []) + (schema["anyOf"]?.items ?? []) where isNullSchema(member) {
            return true
        }
        return false
    }

    /// `{type: null}`, `{enum: [null]}` or a `$ref` to one.
    func isNullSchema(_ schema: Node) -> Bool {
        let resolved = resolve(schema, pointer: "#", notes: false).node
        if typeNames(resolved) == ["null"] { return true }
        if let values = resolved["enum"]?.items, !values.isEmpty, values.allSatisfy(\.isNull) { return true }
        return false
    }

    /// `{enum: [""]}` (drf-spectacular's `BlankEnum`), which a string enum's unknown value already holds.
    func isBlankSchema(_ schema: Node) -> Bool {
        let resolved = resolve(schema, pointer: "#", notes: false).node
        if let values = resolved["enum"]?.items, values.count == 1, values[0].string == "" { return true }
        return false
    }

    /// The values of an enum written as a Swift enum: strings, or integers (`integer`), each once (a value listed
    /// twice is a diagnostic); `nil` for a schema that is not such an enum.
    func enumeration(_ schema: Node, pointer: String) -> (values: [String], integer: Bool)? {
        let found: (values: [String], integer: Bool)
        if let values = stringEnumValues(schema) {
            found = (values, false)
        } else if let values = integerEnumValues(schema) {
            found = (values, true)
        } else {
            return nil
        }
        var seen: Set<String> = []
        var unique: [String] = []
        for value in found.values {
            if seen.insert(value).inserted {
                unique.append(value)
            } else {
                note(pointer, "enum lists \(SwiftNames.literal(value)) more than once; it is one case")
            }
        }
        return (unique, found.integer)
    }

    /// The values of an integer enum (`type: integer`, or no type and only integers), in decimal; `nil` when a
    /// value is not an integer that fits `Int`.
    func integerEnumValues(_ schema: Node) -> [String]? {
        guard let values = schema["enum"]?.items, !values.isEmpty else { return nil }
        let types = typeNames(schema).filter { $0 != "null" }
        guard types.isEmpty || types == ["integer"] else { return nil }
        var result: [String] = []
        for value in values where !value.isNull {
            guard case .scalar(let text, quoted: false) = value, let number = Int(text) else { return nil }
            result.append(String(number))
        }
        return result.isEmpty ? nil : result
    }

    /// The values of a string enum (`null` left out: it makes the enum nullable).
    func stringEnumValues(_ schema: Node) -> [String]? {
        guard let values = schema["enum"]?.items, !values.isEmpty else { return nil }
        let types = typeNames(schema).filter { $0 != "null" }
        guard types.isEmpty || types == ["string"] else { return nil }
        let strings = values.filter { !$0.isNull }
        guard !strings.isEmpty else { return nil }
        guard strings.allSatisfy({ $0.string != nil }) else { return nil }
        if types.isEmpty, strings.contains(where: { if case .scalar(_, quoted: false) = $0 { true } else { false } }),
            strings.allSatisfy({ Double($0.string ?? "") != nil || $0.string == "true" || $0.string == "false" })
        {
            return nil
        }
        return strings.compactMap(\.string)
    }
}
