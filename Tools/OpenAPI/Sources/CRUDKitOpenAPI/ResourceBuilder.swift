import Foundation

/// Turns the collections ``ResourceExtractor`` finds into resource models: which schema each reads and writes,
/// its id type, conformances, trailing slash, pagination, parent and custom actions.
struct ResourceBuilder {
    let mapper: SchemaMapper
    let conventions: GeneratorOptions.Conventions

    struct Built {
        /// Resource structs that are not a component of their own (an inline schema, or a second collection
        /// sharing a component with another).
        var inline: [Declaration]
    }

    struct Pending {
        var found: ResourceExtractor.Found
        var name: String
        var componentKey: String?
        var readSchema: (node: Node, pointer: String)
        var requestKey: String?
        var info: ResourceInfo
        var shared: Bool
    }

    // MARK: - Operation schemas

    /// The JSON schema of an operation's first 2xx answer (`nil` when it has no JSON body).
    func responseSchema(_ operation: Node?, pointer: String) -> (node: Node, pointer: String)? {
        guard let operation else { return nil }
        let responses = operation["responses"]?.members ?? []
        for response in responses where response.key.hasPrefix("2") {
            let (resolved, at) = mapper.resolve(
                response.value, pointer: Pointer.join(pointer, "responses", response.key))
            return jsonSchema(in: resolved, pointer: at)
        }
        return nil
    }

    func requestSchema(_ operation: Node?, pointer: String) -> (node: Node, pointer: String)? {
        guard let body = operation?["requestBody"] else { return nil }
        let (resolved, at) = mapper.resolve(body, pointer: Pointer.join(pointer, "requestBody"))
        return jsonSchema(in: resolved, pointer: at)
    }

    func jsonSchema(in holder: Node, pointer: String) -> (node: Node, pointer: String)? {
        let contents = holder["content"]?.members ?? []
        let chosen =
            contents.first { $0.key == "application/json" } ?? contents.first { $0.key.contains("json") }
        guard let chosen, let schema = chosen.value["schema"] else { return nil }
        return (schema, Pointer.join(pointer, "content", chosen.key, "schema"))
    }

    func referencedKey(_ schema: Node) -> String? {
        if let reference = schema["$ref"]?.string { return mapper.componentKey(ofReference: reference) }
        if let allOf = schema["allOf"]?.items, allOf.count == 1, let reference = allOf[0]["$ref"]?.string {
            return mapper.componentKey(ofReference: reference)
        }
        return nil
    }

    /// The item schema of a list answer and the envelope around it.
    func listItems(
        _ schema: (node: Node, pointer: String)
    ) -> (
        item: (node: Node, pointer: String)?, envelope: ConventionsDetector.Envelope?
    ) {
        let (resolved, at) = mapper.resolve(schema.node, pointer: schema.pointer)
        if mapper.typeNames(resolved).contains("array"), let items = resolved["items"] {
            return ((items, Pointer.join(at, "items")), nil)
        }
        let detector = ConventionsDetector(mapper: mapper)
        guard let envelope = detector.envelope(resolved) else { return (nil, nil) }
        let member = mapper.members(of: resolved, pointer: at).members.first { $0.key == envelope.itemsKey }
        guard let member else { return (nil, envelope) }
        let (array, arrayPointer) = mapper.resolve(member.schema, pointer: member.pointer)
        guard let items = array["items"] else { return (nil, envelope) }
        return ((items, Pointer.join(arrayPointer, "items")), envelope)
    }

    // MARK: - Building

    func build(only: [String]) throws -> Built {
        let found = ResourceExtractor(mapper: mapper).find()
        let selected = try select(found, only: only)
        var pending: [Pending] = []
        var claimed: [String: String] = [:]  // component key → resource type name
        var names: [String: String] = [:]  // collection key → type name
        var usedNames = UniqueNames(Set(mapper.componentNames.values))
        for resource in selected {
            guard let entry = resource.member ?? resource.collection else { continue }
            let collectionPointer = resource.collection?.pointer ?? entry.pointer
            let memberPointer = resource.member?.pointer ?? entry.pointer
            let read =
                responseSchema(resource.member?.item["get"], pointer: Pointer.join(memberPointer, "get"))
                ?? responseSchema(resource.collection?.item["post"], pointer: Pointer.join(collectionPointer, "post"))
                ?? resource.collection.flatMap { collection in
                    responseSchema(collection.item["get"], pointer: Pointer.join(collectionPointer, "get"))
                        .flatMap { listItems($0).item }
                }
                ?? responseSchema(resource.member?.item["put"], pointer: Pointer.join(memberPointer, "put"))
            guard let read else {
                mapper.note(entry.pointer, "no JSON schema for the resource's values; no model is generated")
                continue
            }
            let request =
                requestSchema(resource.collection?.item["post"], pointer: Pointer.join(collectionPointer, "post"))
                ?? requestSchema(resource.member?.item["put"], pointer: Pointer.join(memberPointer, "put"))
                ?? requestSchema(resource.member?.item["patch"], pointer: Pointer.join(memberPointer, "patch"))
            let key = referencedKey(read.node)
            var requestKey = request.flatMap { referencedKey($0.node) }
            if let request, requestKey == nil, key != nil {
                mapper.note(
                    request.pointer,
                    "an inline request schema is not merged into the model; writes send the "
                        + "read schema's fields that are not readOnly")
                requestKey = nil
            }
            let segments = resource.key.split(separator: "/").map(String.init)
            var parent: String?
            var pathSegments = segments
            if let lastParameter = segments.lastIndex(of: "{}") {
                let parentKey = segments[..<lastParameter].joined(separator: "/")
                parent = names[parentKey]
                pathSegments = Array(segments[(lastParameter + 1)...])
                if parent == nil {
                    mapper.note(
                        entry.pointer,
                        "no resource at \(parentKey)/{…}: the model's path is the segments after it, "
                            + "to be reached with a scope you build by hand")
                }
            }
            var name: String
            let derived = SwiftNames.typeName(
                pathSegments.dropLast().joined(separator: "_") + "_" + SwiftNames.singular(pathSegments.last ?? ""))
            if let key, claimed[key] == nil {
                name = mapper.componentNames[key] ?? derived
                usedNames.insert(name)
            } else {
                name = usedNames.claim(derived)
            }
            mapper.claimTopLevelName(name)
            names[resource.key] = name
            let info = ResourceInfo(
                path: pathSegments.joined(separator: "/"),
                spelledPaths: [resource.collection?.spelled, resource.member?.spelled].compactMap { $0 },
                idType: idType(resource.member), idProperty: nil,
                conformances: conformances(resource, pointer: entry.pointer),
                trailingSlash: (resource.member ?? resource.collection)?.trailingSlash,
                pagination: pagination(resource, pointer: collectionPointer), parent: parent, actions: [])
            let shared = key.map { claimed[$0] != nil } ?? false
            if let key, claimed[key] == nil { claimed[key] = name }
            var item = Pending(
                found: resource, name: name, componentKey: key, readSchema: read, requestKey: requestKey, info: info,
                shared: shared)
            item.info.idProperty = idProperty(read: read, member: resource.member)
            if let parent, let lastParameter = segments.lastIndex(of: "{}"), !parent.isEmpty {
                item.info.parentPath = segments[..<lastParameter].map { $0 == "{}" ? "{id}" : $0 }
                    .joined(separator: "/")
            }
            pending.append(item)
        }
        for item in pending where !item.shared {
            if let key = item.componentKey {
                mapper.resources[key] = item.info
                if let requestKey = item.requestKey { mapper.requestSchemas[key] = requestKey }
            }
        }
        for index in pending.indices {
            pending[index].info.actions = actionsFor(
                pending[index].found, model: pending[index].name, componentKey: pending[index].componentKey,
                nested: pending[index].info.parent != nil || pending[index].found.key.contains("{}"),
                parent: pending[index].info.parent)
            if let key = pending[index].componentKey, !pending[index].shared {
                mapper.resources[key] = pending[index].info
            }
        }
        var inline: [Declaration] = []
        for item in pending {
            if let key = item.componentKey, !item.shared {
                _ = mapper.declareComponent(key)
                mapper.attach(item.info, to: key)
            } else {
                let (schema, pointer) = mapper.resolve(item.readSchema.node, pointer: item.readSchema.pointer)
                inline.append(
                    .structure(
                        mapper.structure(
                            named: item.name, schema: schema, pointer: pointer, componentKey: item.componentKey,
                            resource: item.info, requestKey: item.requestKey)))
            }
        }
        return Built(inline: inline)
    }

    func select(_ found: [ResourceExtractor.Found], only: [String]) throws -> [ResourceExtractor.Found] {
        guard !only.isEmpty else { return found }
        var chosen: Set<String> = []
        for wanted in only {
            let trimmed = wanted.trimmingCharacters(in: CharacterSet(charactersIn: "/ "))
            let matches = found.filter { resource in
                let statics = resource.key.split(separator: "/").filter { $0 != "{}" }.joined(separator: "/")
                return resource.key == trimmed || statics == trimmed
                    || resource.key.split(separator: "/").last.map(String.init) == trimmed
            }
            guard !matches.isEmpty else { throw GeneratorError.unknownResource(wanted) }
            for match in matches { chosen.insert(match.key) }
        }
        // A nested collection needs its parent.
        for key in chosen {
            var segments = key.split(separator: "/").map(String.init)
            while let index = segments.lastIndex(of: "{}") {
                segments = Array(segments[..<index])
                let parentKey = segments.joined(separator: "/")
                if found.contains(where: { $0.key == parentKey }) { chosen.insert(parentKey) }
            }
        }
        return found.filter { chosen.contains($0.key) }
    }

    func conformances(_ resource: ResourceExtractor.Found, pointer: String) -> [String] {
        var result: [String] = []
        let collection = resource.collection?.item
        let member = resource.member?.item
        if member?["get"] != nil { result.append("Readable") }
        if collection?["get"] != nil { result.append("Enumeratable") }
        if collection?["post"] != nil { result.append("Creatable") }
        if member?["put"] != nil || member?["patch"] != nil { result.append("Updatable") }
        if member?["put"] == nil, member?["patch"] != nil {
            mapper.note(
                resource.member?.pointer ?? pointer,
                "only PATCH updates this resource: use `update(from: original)`; `update()` sends a PUT, which the "
                    + "document does not offer")
        }
        if member?["delete"] != nil { result.append("Deletable") }
        return result
    }

    func pathParameter(_ entry: ResourceExtractor.PathEntry) -> (node: Node, pointer: String)? {
        guard let name = entry.segments.last?.dropFirst().dropLast().description else { return nil }
        var lists: [(Node, String)] = [
            (entry.item["parameters"] ?? .array([]), Pointer.join(entry.pointer, "parameters"))
        ]
        for method in ResourceExtractor.methods {
            if let list = entry.item[method]?["parameters"] {
                lists.append((list, Pointer.join(entry.pointer, method, "parameters")))
            }
        }
        for (list, at) in lists {
            for (index, parameter) in list.items.enumerated() {
                let (resolved, resolvedAt) = mapper.resolve(parameter, pointer: Pointer.join(at, String(index)))
                if resolved["name"]?.string == name, resolved["in"]?.string == "path" {
                    return (resolved["schema"] ?? .object([]), Pointer.join(resolvedAt, "schema"))
                }
            }
        }
        return nil
    }

    func idType(_ member: ResourceExtractor.PathEntry?) -> String {
        guard let member else { return "String" }
        guard let (schema, pointer) = pathParameter(member) else {
            mapper.note(member.pointer, "the id parameter has no schema; the id is a String")
            return "String"
        }
        var nested: [Declaration] = []
        let mapped = mapper.type(for: schema, pointer: pointer, hint: "ID", nested: &nested)
        switch mapped.type {
        case "Int", "Int64", "Int32", "String", "UUID": return mapped.type
        default:
            mapper.note(pointer, "an id of type \(mapped.type) cannot be a path segment; the id is a String")
            return "String"
        }
    }

    /// The read schema's property that holds the id: the one named like the path parameter, or `id`.
    func idProperty(read: (node: Node, pointer: String), member: ResourceExtractor.PathEntry?) -> String? {
        let (schema, pointer) = mapper.resolve(read.node, pointer: read.pointer)
        let keys = mapper.members(of: schema, pointer: pointer).members.map(\.key)
        let parameter = member?.segments.last.map { String($0.dropFirst().dropLast()) }
        if let parameter, keys.contains(parameter) { return parameter }
        if keys.contains("id") { return "id" }
        // `_id` (MongoDB), `ID`: the key whose Swift name is `id`.
        return keys.first { SwiftNames.bare(SwiftNames.propertyName($0)) == "id" }
    }

    func pagination(_ resource: ResourceExtractor.Found, pointer: String) -> String? {
        guard let collection = resource.collection,
            let schema = responseSchema(collection.item["get"], pointer: Pointer.join(pointer, "get"))
        else { return nil }
        let (_, envelope) = listItems(schema)
        if let envelope { return envelope.pagination }
        let (resolved, _) = mapper.resolve(schema.node, pointer: schema.pointer)
        if mapper.typeNames(resolved).contains("array") { return ".automatic" }
        mapper.note(schema.pointer, "the list's envelope is not one CRUDKit knows; the API's pagination applies")
        return nil
    }
}
