import Foundation

/// JSON:API documents to and from the plain JSON objects models are mapped with (``ResourceFormat/jsonAPI``).
///
/// Reading turns each resource object of the primary data into `{"id": …, attributes…, relationships…}` and leaves
/// the rest of the document (`links`, `meta`) where it is, so the pagination and root keys read it as they read
/// any envelope. Writing turns a model's object into `{"data": {"type", "id", "attributes", "relationships"}}`.
/// Neither recurses beyond one included resource, whatever the input.
enum JSONAPIDocument {
    // MARK: - Reading

    /// `document` with its primary data (`data`, an object or an array of them) flattened for `shape`; anything
    /// that is not a JSON:API document is returned as it is.
    static func flattened(_ document: JSON, shape: JSONAPIShape) -> JSON {
        guard case .object(var top) = document, let data = top["data"] else { return document }
        let included = Included(top["included"])
        switch data {
        case .object(let resource):
            top["data"] = .object(flatten(resource, shape: shape, included: included))
        case .array(let resources):
            top["data"] = .array(
                resources.map { item in
                    item.object.map { .object(flatten($0, shape: shape, included: included)) } ?? item
                })
        default:
            return document
        }
        return .object(top)
    }

    /// One resource object as a plain object: `id` (an integer when the ids are and the string is one), the
    /// attributes, then each declared relationship (ids, or the included resources for an embedded one). A
    /// relationship the document does not carry (or carries without `data`) is left out.
    private static func flatten(
        _ resource: JSON.Object, shape: JSONAPIShape, included: Included?
    ) -> JSON.Object {
        guard resource["attributes"] != nil || resource["type"] != nil else { return resource }
        var flat = JSON.Object()
        if let id = resource["id"] { flat["id"] = readID(id, numeric: shape.numericIDs) }
        for (key, value) in resource["attributes"]?.object ?? JSON.Object() where key != "id" {
            flat[key] = value
        }
        let relationships = resource["relationships"]?.object
        for relationship in shape.relationships {
            guard let data = relationships?[relationship.key]?.object?["data"] else { continue }
            flat[relationship.key] = related(data, relationship, included: included)
        }
        return flat
    }

    /// A relationship's `data` as the model holds it.
    private static func related(_ data: JSON, _ relationship: JSONAPIRelationship, included: Included?) -> JSON {
        switch data {
        case .array(let identifiers):
            return .array(identifiers.map { one($0, relationship, included: included) })
        case .null:
            return relationship.isToMany ? .array([]) : .null
        default:
            return one(data, relationship, included: included)
        }
    }

    private static func one(_ identifier: JSON, _ relationship: JSONAPIRelationship, included: Included?) -> JSON {
        guard let object = identifier.object, let rawID = object["id"] else { return .null }
        let id = readID(rawID, numeric: relationship.hasNumericIDs)
        guard relationship.isEmbedded else { return id }
        let shape = JSONAPIShape(type: relationship.type, relationships: [], numericIDs: relationship.hasNumericIDs)
        if let type = object["type"]?.string, let text = idText(rawID), let resource = included?[type, text] {
            return .object(flatten(resource, shape: shape, included: nil))
        }
        return ["id": id]
    }

    /// A resource id as the model reads it: `"12"` as `12` when its ids are integers, a number (which a server
    /// should not send, but some do) as its digits when they are not (`String`, `UUID`), else as it came.
    private static func readID(_ id: JSON, numeric: Bool) -> JSON {
        if !numeric, case .number(let number) = id { return .string(number.description) }
        guard numeric, let text = id.string, let value = Int64(text) else { return id }
        return .number(.int(value))
    }

    /// An id's text: a string as it is, a number as its digits.
    private static func idText(_ id: JSON) -> String? {
        switch id {
        case .string(let text): text
        case .number(let number): number.description
        default: nil
        }
    }

    /// The `included` resources by type and id.
    private struct Included {
        private var resources: [String: JSON.Object] = [:]

        init?(_ json: JSON?) {
            guard let items = json?.array, !items.isEmpty else { return nil }
            for item in items {
                guard let object = item.object, let type = object["type"]?.string,
                    let id = object["id"].flatMap(JSONAPIDocument.idText)
                else { continue }
                resources[Self.key(type, id)] = object
            }
        }

        subscript(type: String, id: String) -> JSON.Object? { resources[Self.key(type, id)] }

        private static func key(_ type: String, _ id: String) -> String { type + "\u{0}" + id }
    }

    // MARK: - Writing

    /// The document for a model's plain object: `{"data": {"type", "id", "attributes", "relationships"}}`.
    /// - Parameters:
    ///   - object: The model's object (all of it, or the changes of a `PATCH`).
    ///   - shape: The model as a resource.
    ///   - id: The id to send (a `PATCH` always sends it); `nil` sends the object's own `id`, if any.
    ///   - parent: The collection path segments and id of the parent scope, filling a declared to-one
    ///     relationship to it that `object` leaves out or `null`.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` for a relationship value without an id.
    static func document(
        for object: JSON.Object, shape: JSONAPIShape, id: String?, parent: (path: [String], id: String)?
    ) throws -> JSON {
        var resource: JSON.Object = ["type": .string(shape.type)]
        if let id = id ?? object["id"].flatMap(idText) { resource["id"] = .string(id) }
        let relationshipKeys = Set(shape.relationships.map(\.key))
        var attributes = JSON.Object()
        for (key, value) in object where key != "id" && !relationshipKeys.contains(key) {
            attributes[key] = value
        }
        var relationships = JSON.Object()
        // The parent fills the first to-one relationship declared to its model.
        let parentKey = parent.flatMap { parent in
            shape.relationships.first { !$0.isToMany && !$0.relatedPath.isEmpty && $0.relatedPath == parent.path }?.key
        }
        for relationship in shape.relationships {
            var value = object[relationship.key]
            if let parent, relationship.key == parentKey, value == nil || value == .null {
                value = .string(parent.id)
            }
            guard let value else { continue }
            relationships[relationship.key] = ["data": try linkage(value, relationship)]
        }
        if !attributes.isEmpty { resource["attributes"] = .object(attributes) }
        if !relationships.isEmpty { resource["relationships"] = .object(relationships) }
        return ["data": .object(resource)]
    }

    /// A model's relationship value as resource linkage: `null`, an identifier, or an array of them.
    private static func linkage(_ value: JSON, _ relationship: JSONAPIRelationship) throws -> JSON {
        switch value {
        case .null:
            return relationship.isToMany ? .array([]) : .null
        case .array(let items):
            return .array(try items.map { try identifier($0, relationship) })
        default:
            return try identifier(value, relationship)
        }
    }

    private static func identifier(_ value: JSON, _ relationship: JSONAPIRelationship) throws -> JSON {
        let raw = value.object.map { $0["id"] ?? .null } ?? value
        guard let id = idText(raw), !id.isEmpty else {
            throw CRUDError.invalidRequest(
                reason: "the relationship `\(relationship.key)` holds \(value.kindDescription), not a related id")
        }
        return ["type": .string(relationship.type), "id": .string(id)]
    }

    /// The identities of a relationship value (`type/id` texts), to tell whether a `PATCH` changes it.
    static func identity(_ value: JSON?) -> [String] {
        switch value {
        case .array(let items)?: items.map { idText($0.object.map { $0["id"] ?? .null } ?? $0) ?? "" }
        case .null?, nil: []
        case let value?: [idText(value.object.map { $0["id"] ?? .null } ?? value) ?? ""]
        }
    }
}
