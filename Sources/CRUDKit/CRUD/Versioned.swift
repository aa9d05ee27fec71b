import Foundation

/// A value together with the `ETag` the server sent with it, for optimistic concurrency.
///
/// Models are values, so the tag cannot live inside them without every model declaring a field for it; it
/// travels beside the value instead. ``Readable/readTagged(id:)->Versioned<Self>`` answers a `Versioned`; edit it
/// like the model (its properties are reachable directly), then ``update()->Versioned<Model>`` or
/// ``delete()->Okay`` it: the request carries `If-Match: <etag>`, and a server that changed the resource in between
/// answers 412, which surfaces as ``CRUDError/conflict(_:)``. Without a tag (the server sent none) the requests are
/// unconditional.
///
/// A weak tag (`W/"v7"`, what Rails' `stale?`/`fresh_when` and many proxies send) is never sent in `If-Match`:
/// RFC 9110 compares `If-Match` strongly, so a conforming server answers 412 to it every time. With a weak tag or
/// none, the request carries `If-Unmodified-Since` with the `Last-Modified` the server sent, when it sent one
/// (see ``conditions``).
///
/// ```swift
/// var ada = try await Person.readTagged(id: 12)
/// ada.favoriteColor = "green"
/// do {
///     ada = try await ada.updateChanges()   // PATCH with If-Match, only the changed fields
/// } catch CRUDError.conflict {
///     // someone else changed it: read again and retry
/// }
/// ```
@dynamicMemberLookup
public struct Versioned<Model: CRUDResource>: Sendable {
    /// The value, as edited.
    public var value: Model
    /// The value as the server sent it with ``etag`` (what ``updateChanges()->Versioned<Model>`` diffs against).
    public let original: Model
    /// The entity tag the server sent (`"v7"` or `W/"v7"`), if any.
    public let etag: String?
    /// The `Last-Modified` date the server sent, as it sent it, if any.
    public let lastModified: String?

    /// Creates a versioned value.
    /// - Parameters:
    ///   - value: The value as read.
    ///   - etag: Its entity tag, if any.
    ///   - lastModified: Its `Last-Modified` header value, if any.
    public init(_ value: Model, etag: String?, lastModified: String? = nil) {
        self.value = value
        self.original = value
        self.etag = etag
        self.lastModified = lastModified
    }

    init(_ pair: (Model, HTTPResponse)) {
        self.init(pair.0, etag: pair.1.headers["ETag"], lastModified: pair.1.headers["Last-Modified"])
    }

    /// The precondition headers a write of this value carries: `If-Match` with a strong ``etag``; else
    /// `If-Unmodified-Since` with ``lastModified``; else none. A weak tag (`W/"…"`) never goes into `If-Match`.
    public var conditions: HTTPHeaders {
        if let etag, !etag.isEmpty, !etag.hasPrefix("W/") { return ["If-Match": etag] }
        if let lastModified, !lastModified.isEmpty { return ["If-Unmodified-Since": lastModified] }
        return [:]
    }

    /// A property of the value, read and written through the wrapper (`ada.firstName`).
    public subscript<Property>(dynamicMember keyPath: WritableKeyPath<Model, Property>) -> Property {
        get { value[keyPath: keyPath] }
        set { value[keyPath: keyPath] = newValue }
    }
}

extension ResourceScope where Model: Readable {
    // twin: future
    /// Reads the value with `id` together with its `ETag`.
    /// - Parameter id: The id.
    /// - Returns: The value and its tag.
    /// - Throws: ``CRUDError``.
    @_disfavoredOverload
    public func readTagged(id: Model.ID) async throws -> Versioned<Model> {
        Versioned(try await performRead(id: id))
    }
}

extension ResourceScope where Model: Updatable {
    // twin: none (the value's own `update()` has the Future form; one form per call keeps `update` lean)
    /// Replaces the value with `PUT`, sending `If-Match` with its tag.
    /// - Parameter versioned: The edited value and the tag it was read with.
    /// - Returns: The server's copy with its new tag.
    /// - Throws: ``CRUDError/conflict(_:)`` when the server's copy changed since (412); otherwise ``CRUDError``.
    public func update(_ versioned: Versioned<Model>) async throws -> Versioned<Model> {
        Versioned(try await performUpdate(versioned.value, conditions: versioned.conditions))
    }

    // twin: none (the value's own `updateChanges()` has the Future form)
    /// Sends what changed since the value was read with `PATCH`, sending `If-Match` with its tag; nothing changed:
    /// nothing is sent and `versioned` is returned.
    /// - Parameter versioned: The edited value and the tag it was read with.
    /// - Returns: The server's copy with its new tag.
    /// - Throws: ``CRUDError/conflict(_:)`` when the server's copy changed since (412); otherwise ``CRUDError``.
    public func updateChanges(_ versioned: Versioned<Model>) async throws -> Versioned<Model> {
        let conditions = versioned.conditions
        guard let pair = try await performPatch(versioned.value, from: versioned.original, conditions: conditions)
        else { return versioned }
        return Versioned(pair)
    }
}

extension ResourceScope where Model: Deletable {
    // twin: none (the value's own `delete()` has the Future form; one form per call keeps `delete` lean)
    /// Deletes the value, sending `If-Match` with its tag.
    /// - Parameter versioned: The value and the tag it was read with.
    /// - Returns: ``Okay``.
    /// - Throws: ``CRUDError/conflict(_:)`` when the server's copy changed since (412); otherwise ``CRUDError``.
    @discardableResult
    public func delete(_ versioned: Versioned<Model>) async throws -> Okay {
        try await performDelete(memberEndpoint(for: .delete, of: versioned.value), conditions: versioned.conditions)
    }
}

extension Readable {
    // twin: future
    /// Reads the value with `id` together with its `ETag` (see ``Versioned``).
    /// - Parameter id: The id.
    /// - Returns: The value and its tag.
    /// - Throws: ``CRUDError``.
    @_disfavoredOverload
    public static func readTagged(id: ID) async throws -> Versioned<Self> {
        try await scope.readTagged(id: id)
    }
}

extension Versioned where Model: Updatable {
    // twin: future, noasync: the update; spell the model type, via: Model
    /// Replaces the value with `PUT` and `If-Match` (see ``ResourceScope/update(_:)-(Versioned<Model>)``).
    /// - Returns: The server's copy with its new tag.
    /// - Throws: ``CRUDError/conflict(_:)`` on 412; otherwise ``CRUDError``.
    @_disfavoredOverload
    public func update() async throws -> Versioned<Model> {
        try await Model.scope.update(self)
    }

    // twin: future, noasync: the update; spell the model type, via: Model
    /// Sends only the changes since the value was read, with `PATCH` and `If-Match`.
    /// - Returns: The server's copy with its new tag, or this value when nothing changed.
    /// - Throws: ``CRUDError/conflict(_:)`` on 412; otherwise ``CRUDError``.
    @_disfavoredOverload
    public func updateChanges() async throws -> Versioned<Model> {
        try await Model.scope.updateChanges(self)
    }
}

extension Versioned where Model: Deletable {
    // twin: future, noasync: the delete; write let _: Okay =, via: Model
    /// Deletes the value with `If-Match`.
    /// - Returns: ``Okay``.
    /// - Throws: ``CRUDError/conflict(_:)`` on 412; otherwise ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func delete() async throws -> Okay {
        try await Model.scope.delete(self)
    }
}
