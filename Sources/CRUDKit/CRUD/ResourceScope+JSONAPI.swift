import Foundation

// Where a scope's reads and writes turn into JSON:API documents, when its conventions say so
// (``ResourceFormat/jsonAPI``); with ``ResourceFormat/plain`` each of these leaves the body as it was.

extension ResourceScope {
    /// Whether this scope's models travel as JSON:API resource objects.
    var speaksJSONAPI: Bool { conventions.format.isJSONAPI }

    /// An answer's document as the model mappings read it: JSON:API primary data flattened into plain objects.
    func readable(_ json: JSON) -> JSON {
        speaksJSONAPI ? JSONAPIDocument.flattened(json, shape: Model.jsonAPIShape) : json
    }

    /// The headers that make this scope's requests speak its conventions' media type when it differs from the
    /// API's (a model that changed ``APIConventions/mediaType`` for its own calls).
    func mediaHeaders(hasBody: Bool) -> HTTPHeaders {
        let mediaType = conventions.mediaType
        guard mediaType != api.configuration.conventions.mediaType else { return [:] }
        var headers: HTTPHeaders = ["Accept": mediaType]
        if hasBody { headers["Content-Type"] = mediaType }
        return headers
    }
}

extension ResourceScope where Model: WritableResource {
    /// The body of a create: the model's object, as a JSON:API document (with the parent as a relationship where
    /// the model declares one to it) when the conventions say so.
    func creation(for model: Model) throws -> JSON {
        guard speaksJSONAPI else { return try model.requestJSON(coding: coding) }
        let object = try model.encoded(coding: coding).object ?? JSON.Object()
        return try JSONAPIDocument.document(for: object, shape: Model.jsonAPIShape, id: nil, parent: parentPair)
    }

    /// The method of a replacement (`update()`): `PUT`, or `PATCH` for JSON:API, which has no `PUT`.
    var replacementMethod: HTTPMethod { speaksJSONAPI ? .patch : .put }

    /// A replacement's object as a JSON:API document with its `type` and `id` (under a parent, the parent in the
    /// relationship a create fills when the value leaves it `nil`), or `nil` for the plain format.
    func jsonAPIReplacement(_ object: JSON, id: String) throws -> JSON? {
        guard speaksJSONAPI else { return nil }
        return try JSONAPIDocument.document(
            for: object.object ?? JSON.Object(), shape: Model.jsonAPIShape, id: id, parent: parentPair)
    }

    /// Whether a `PATCH` body has anything to change: JSON:API documents without `attributes` and
    /// `relationships` (an edit only inside an embedded related resource, whose id alone is sent) have not.
    func patchChangesSomething(_ body: JSON) -> Bool {
        guard speaksJSONAPI, let resource = body.object?["data"]?.object else { return true }
        return resource["attributes"] != nil || resource["relationships"] != nil
    }

    /// A `PATCH` body as a JSON:API document: `type`, `id`, the changed attributes, and the relationships whose
    /// related ids changed (sent whole); `nil` for the plain format.
    /// - Parameters:
    ///   - changes: The merge patch from `original` to `model` (plain keys).
    ///   - model: The new state.
    ///   - original: The state as the server last sent it.
    func jsonAPIPatch(_ changes: JSON, for model: Model, from original: Model) throws -> JSON? {
        guard speaksJSONAPI else { return nil }
        let shape = Model.jsonAPIShape
        var object = changes.object ?? JSON.Object()
        if !shape.relationships.isEmpty {
            var coding = self.coding
            coding.nilEncoding = .null
            let now = try model.encoded(coding: coding).object
            let before = try original.encoded(coding: coding).object
            for relationship in shape.relationships where object[relationship.key] != nil {
                let value = now?[relationship.key]
                let same =
                    JSONAPIDocument.identity(value) == JSONAPIDocument.identity(before?[relationship.key])
                object[relationship.key] = same ? nil : value
            }
        }
        return try JSONAPIDocument.document(
            for: object, shape: shape, id: try model.requireID(for: .update), parent: nil)
    }

    /// The parent's collection path (the segments before its id) and id.
    private var parentPair: (path: [String], id: String)? {
        guard let id = parentSegments.last, !id.isEmpty else { return nil }
        return (Array(parentSegments.dropLast()), id)
    }
}
