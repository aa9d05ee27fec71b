import Foundation

/// A model that can be replaced (`PUT /people/12`) or changed in part (`PATCH /people/12` with only the fields
/// that differ from the value as it was read).
///
/// ```swift
/// var edited = ada
/// edited.favoriteColor = nil
/// let saved = try await edited.update(from: ada)   // PATCH {"favorite_color": null}
/// let replaced = try await edited.update()          // PUT with every attribute, "favorite_color": null
/// ```
///
/// A `PUT` is a full replacement: a `nil` optional is sent as `null` so the server clears it (see
/// ``APIConventions/putNilEncoding``, which a model may change with ``CRUDResource/conventions(from:)``).
public protocol Updatable: WritableResource {}

extension ResourceScope where Model: Updatable {
    // twin: future, noasync: the update; spell the model type
    /// Replaces `model` on the server (`PUT /people/{id}` with all its attributes, `nil` ones as `null` unless the
    /// conventions' ``APIConventions/putNilEncoding`` says otherwise), or with `original`, sends only what changed from it (`PATCH /people/{id}` with a
    /// JSON Merge Patch, RFC 7396).
    ///
    /// A `PATCH` sends only the fields whose JSON differs; a field that became `nil` (or ``JSONAttribute/null``) is
    /// sent as `null`; a ``JSONAttribute/absent`` field is never sent (the server keeps its value); arrays are sent
    /// whole. A changed nested object is diffed member by member with the ``APIConventions/standard``
    /// conventions, and sent whole with a framework preset (``APIConventions/diffsNestedObjects``: Rails, Django
    /// REST framework, FastAPI and Vapor replace a nested value with what the `PATCH` carries). When nothing
    /// differs, nothing is sent and `model` is returned as it is (read it again if you need the server's latest
    /// copy).
    ///
    /// ```swift
    /// let replaced = try await Person.using(api).update(edited)              // PUT
    /// let patched = try await Person.using(api).update(edited, from: ada)    // PATCH, only the changes
    /// ```
    /// - Parameters:
    ///   - model: The new state; it needs an id.
    ///   - original: The state as the server last sent it, to send only the changes (`PATCH`); `nil` (the default)
    ///     to replace the whole value (`PUT`).
    /// - Returns: The server's copy (read back by id when the answer has no body), or `model` when a `PATCH` had
    ///   nothing to send.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` before sending when there is no id; otherwise ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func update(_ model: Model, from original: Model? = nil) async throws -> Model {
        guard let original else { return try await performUpdate(model).0 }
        return try await performPatch(model, from: original)?.0 ?? model
    }

    /// The JSON Merge Patch `update(_:from:)` sends (`{}` when nothing changed), wrapped in
    /// ``CRUDResource/objectKey`` when there is one.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when a value cannot be encoded.
    package func patch(for model: Model, from original: Model) throws -> JSON {
        let changes = try changes(to: model, from: original)
        return try jsonAPIPatch(changes, for: model, from: original) ?? Model.wrap(changes)
    }

    /// The merge patch from `original` to `model`, unwrapped; nested objects diffed member by member only when the
    /// API's conventions say the server merges them (``APIConventions/diffsNestedObjects``).
    ///
    /// Both sides are encoded with `nil` optionals as `null`, so a key missing from `model`'s JSON is one it does not
    /// send (``JSONAttribute/absent``, or an `encode(to:)` that skips it): it is left out of the patch, and the server
    /// keeps its value. A `nil` optional or ``JSONAttribute/null`` that was not `null` before is sent as `null`.
    private func changes(to model: Model, from original: Model) throws -> JSON {
        var coding = self.coding
        coding.nilEncoding = .null
        return try model.encoded(coding: coding).diff(
            from: try original.encoded(coding: coding),
            recursive: conventions.diffsNestedObjects, clearsRemovedKeys: false)
    }

    /// The body ``update(_:from:)->Model`` sends without `original` (`PUT`): every attribute, `nil` optionals as
    /// `null` unless the conventions' ``APIConventions/putNilEncoding`` says ``JSONCoding/NilEncoding/omit``;
    /// wrapped in ``CRUDResource/objectKey`` when there is one.
    /// - Parameter model: The new state.
    /// - Returns: The JSON body.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when a value cannot be encoded.
    package func replacement(for model: Model) throws -> JSON {
        let conventions = conventions
        var coding = conventions.bodyCoding
        coding.nilEncoding = conventions.putNilEncoding
        if speaksJSONAPI,
            let body = try jsonAPIReplacement(model.encoded(coding: coding), id: model.requireID(for: .update))
        {
            return body
        }
        return try model.requestJSON(coding: coding)
    }

    func performUpdate(_ model: Model, conditions: HTTPHeaders = [:]) async throws -> (Model, HTTPResponse) {
        let id = try model.requireID(for: .update)
        let endpoint = try memberEndpoint(for: .update, segment: id)
        let body = try replacement(for: model)
        let response = try await exchange(replacementMethod, endpoint, body: body, headers: conditions)
        return try await written(response, id: id)
    }

    /// The PATCH exchange, or `nil` when there is nothing to send.
    func performPatch(
        _ model: Model, from original: Model, conditions: HTTPHeaders = [:]
    ) async throws -> (Model, HTTPResponse)? {
        let id = try model.requireID(for: .update)
        let changes = try changes(to: model, from: original)
        if let object = changes.object, object.isEmpty { return nil }
        let endpoint = try memberEndpoint(for: .update, segment: id)
        let body = try jsonAPIPatch(changes, for: model, from: original) ?? Model.wrap(changes)
        guard patchChangesSomething(body) else { return nil }
        let response = try await exchange(.patch, endpoint, body: body, headers: conditions)
        return try await written(response, id: id)
    }
}

extension Updatable {
    // twin: future, noasync: the update; spell the model type
    /// Replaces this value on the server (`PUT /people/{id}` with all its attributes), or with `original`, sends
    /// only what changed since (`PATCH /people/{id}`; see ``ResourceScope/update(_:from:)->Model``). Nothing
    /// changed: nothing is sent and this value is returned.
    ///
    /// ```swift
    /// let replaced = try await edited.update()            // PUT
    /// let patched = try await edited.update(from: ada)    // PATCH, only the changes
    /// ```
    /// - Parameter original: The value as the server last sent it, to send only the changes (`PATCH`); `nil` (the
    ///   default) to replace the whole value (`PUT`).
    /// - Returns: The server's copy (this value is not changed), or this value when a `PATCH` had nothing to send.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` before sending when there is no id; otherwise ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func update(from original: Self? = nil) async throws -> Self {
        let origin = try home(for: .update)
        guard let original else { return try await origin.performUpdate(self).0 }
        return try await origin.performPatch(self, from: original)?.0 ?? self
    }
}
