import Foundation

/// A value together with the `ETag` the server sent with it, for optimistic concurrency.
///
/// Models are values, so the tag cannot live inside them without every model declaring a field for it; it
/// travels beside the value instead. ``Readable/readTagged(id:)->Versioned<Self>`` answers a `Versioned`; edit it
/// like the model (its properties are reachable directly), then ``update()->Versioned<Model>`` or ``delete()`` it:
/// the request carries `If-Match: <etag>`, and a server that changed the resource in between answers 412, which
/// surfaces as ``CRUDError/conflict(_:)``. Without a tag (the server sent none) the requests are unconditional.
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
    /// The value as the server sent it with ``etag`` (what ``updateChanges()`` diffs against).
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
    /// Reads the value with `id` together with its `ETag`.
    /// - Parameter id: The id.
    /// - Returns: The value and its tag.
    /// - Throws: ``CRUDError``.
    public func readTagged(id: Model.ID) async throws -> Versioned<Model> {
        Versioned(try await performRead(id: id))
    }

    /// Reads the value with `id` together with its `ETag`, as a ``Future``.
    /// - Parameter id: The id.
    /// - Returns: A future of the value and its tag.
    public func readTagged(id: Model.ID) -> Future<Versioned<Model>> {
        future { Versioned(try await performRead(id: id)) }
    }
}

extension ResourceScope where Model: Updatable {
    /// Replaces the value with `PUT`, sending `If-Match` with its tag.
    /// - Parameter versioned: The edited value and the tag it was read with.
    /// - Returns: The server's copy with its new tag.
    /// - Throws: ``CRUDError/conflict(_:)`` when the server's copy changed since (412); otherwise ``CRUDError``.
    public func update(_ versioned: Versioned<Model>) async throws -> Versioned<Model> {
        Versioned(try await performUpdate(versioned.value, conditions: versioned.conditions))
    }

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
    /// Reads the value with `id` together with its `ETag` (see ``Versioned``).
    /// - Parameter id: The id.
    /// - Returns: The value and its tag.
    /// - Throws: ``CRUDError``.
    public static func readTagged(id: ID) async throws -> Versioned<Self> {
        try await scope.readTagged(id: id)
    }

    /// Reads the value with `id` together with its `ETag`, as a ``Future``.
    /// - Parameter id: The id.
    /// - Returns: A future of the value and its tag.
    public static func readTagged(id: ID) -> Future<Versioned<Self>> {
        let scope = scope
        return scope.future { Versioned(try await scope.performRead(id: id)) }
    }
}

extension Versioned where Model: Updatable {
    /// Replaces the value with `PUT` and `If-Match` (see ``ResourceScope/update(_:)-(Versioned<Model>)``).
    /// - Returns: The server's copy with its new tag.
    /// - Throws: ``CRUDError/conflict(_:)`` on 412; otherwise ``CRUDError``.
    public func update() async throws -> Versioned<Model> {
        try await Model.scope.update(self)
    }

    /// Replaces the value with `PUT` and `If-Match`, as a ``Future``.
    /// - Returns: A future of the server's copy with its new tag.
    public func update() -> Future<Versioned<Model>> {
        let scope = Model.scope
        return scope.future { Versioned(try await scope.performUpdate(value, conditions: conditions)) }
    }

    /// Sends only the changes since the value was read, with `PATCH` and `If-Match`.
    /// - Returns: The server's copy with its new tag, or this value when nothing changed.
    /// - Throws: ``CRUDError/conflict(_:)`` on 412; otherwise ``CRUDError``.
    public func updateChanges() async throws -> Versioned<Model> {
        try await Model.scope.updateChanges(self)
    }
}

extension Versioned where Model: Deletable {
    /// Deletes the value with `If-Match`.
    /// - Returns: ``Okay``.
    /// - Throws: ``CRUDError/conflict(_:)`` on 412; otherwise ``CRUDError``.
    @discardableResult
    public func delete() async throws -> Okay {
        try await Model.scope.delete(self)
    }
}
