import Foundation

extension ResourceBuilder {
    /// The CRUD names a custom action must not take.
    static let reserved: Set<String> = [
        "read", "create", "update", "delete", "list", "all", "page", "action", "using", "scoped", "path", "api",
        "conventions", "fetchPage", "id",
    ]

    /// The names a collection action of a nested model must not take besides ``reserved``: it is a method of
    /// `ResourceScope where Model == …`, beside the scope's own members.
    static let scopeReserved: Set<String> = [
        "collect", "download", "get", "post", "put", "patch", "send", "nextPage", "readTagged", "updateChanges",
        "coding", "styled", "exchange",
    ]

    /// The custom actions under a resource: typed methods over CRUDKit's `action(_:_:…)`. Under a parent
    /// (`nested` with a `parent` model), member actions are methods of the value (which writes back where it was
    /// read) and collection actions are methods of `ResourceScope where Model == …` (`Post.scoped(to: ada).bulk(…)`).
    fileprivate func actionsImpl(
        _ found: ResourceExtractor.Found, model: String, componentKey: String?, nested: Bool, parent: String?
    ) -> [Action] {
        var result: [Action] = []
        var used: Set<String> = []
        let reservedNames = nested ? Self.reserved.union(Self.scopeReserved) : Self.reserved
        for (entry, subpath, onMember) in found.actions {
            if nested && parent == nil {
                mapper.note(
                    entry.pointer,
                    "an action of a nested collection without a parent model is not generated; call "
                        + "`action(…)` on a scope under its parent with this path")
                continue
            }
            for method in ResourceExtractor.methods where entry.item[method] != nil {
                guard ["get", "post", "put", "patch", "delete"].contains(method) else {
                    mapper.note(Pointer.join(entry.pointer, method), "\(method.uppercased()) actions are not generated")
                    continue
                }
                let operation = entry.item[method]
                let pointer = Pointer.join(entry.pointer, method)
                var base = SwiftNames.propertyName(subpath.replacingOccurrences(of: "/", with: "_"))
                if reservedNames.contains(SwiftNames.bare(base)) || used.contains(base) {
                    base = SwiftNames.escaped(SwiftNames.bare(base) + SwiftNames.typeName(method))
                }
                var name = base
                var counter = 2
                while used.contains(name) {
                    name = SwiftNames.escaped(SwiftNames.bare(base) + "\(counter)")
                    counter += 1
                }
                used.insert(name)
                let hint = model + SwiftNames.typeName(SwiftNames.bare(name))
                var nestedDeclarations: [Declaration] = []
                var bodyType: String?
                if let body = requestSchema(operation, pointer: pointer) {
                    let mapped = mapper.type(
                        for: body.node, pointer: body.pointer, hint: mapper.freeTopLevelName(hint + "Body"),
                        nested: &nestedDeclarations)
                    bodyType = mapped.type
                }
                var resultType: String?
                var isModel = false
                var isModels = false
                if let answer = responseSchema(operation, pointer: pointer) {
                    if let key = referencedKey(answer.node), key == componentKey {
                        isModel = true
                        resultType = model
                    } else if let items = answer.node["items"], let key = referencedKey(items), key == componentKey,
                        answer.node["$ref"] == nil
                    {
                        isModels = true
                        resultType = "[\(model)]"
                    } else {
                        let mapped = mapper.type(
                            for: answer.node, pointer: answer.pointer, hint: mapper.freeTopLevelName(hint + "Result"),
                            nested: &nestedDeclarations)
                        resultType = mapped.nullable && mapped.type != "JSON" ? mapped.type + "?" : mapped.type
                    }
                }
                mapper.addExtraDeclarations(nestedDeclarations)
                result.append(
                    Action(
                        name: name, method: method, subpath: subpath, onMember: onMember, bodyType: bodyType,
                        resultType: resultType, resultIsModel: isModel, resultIsModels: isModels,
                        summary: operation?["summary"]?.string ?? operation?["description"]?.string,
                        spelled: "\(method.uppercased()) \(entry.spelled)"))
            }
        }
        return result
    }
}

extension ResourceBuilder {
    func actionsFor(
        _ found: ResourceExtractor.Found, model: String, componentKey: String?, nested: Bool, parent: String?
    ) -> [Action] {
        actionsImpl(found, model: model, componentKey: componentKey, nested: nested, parent: parent)
    }
}

extension SchemaMapper {
    /// Sets the resource of a component's declared struct (its actions are known only after other types).
    func attach(_ resource: ResourceInfo, to key: String) {
        guard case .structure(var structure) = declarations[key] else {
            note(
                Pointer.join("#/components/schemas", key),
                "the resource's schema is not an object; no model is generated")
            return
        }
        structure.resource = resource
        setDeclaration(.structure(structure), for: key)
    }
}
