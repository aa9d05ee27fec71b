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
/// none, the request carries `If-Unmodified-Since` with the `Last-Modified` the server sent, when it sent one.
///
/// A versioned value remembers where it was read: one read through a scope (`Post.scoped(to: ada).readTagged(id: 7)`,
/// `Person.using(api)`) is updated and deleted through that scope's API and parent path.
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
    /// Where the value was read (API and parent path); `nil` for a value made with ``init(_:etag:lastModified:)``,
    /// which uses the model's own scope at each call.
    let scope: ResourceScope<Model>?

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
        self.scope = nil
    }

    init(_ pair: (Model, HTTPResponse), scope: ResourceScope<Model>) {
        self.value = pair.0
        self.original = pair.0
        self.etag = pair.1.headers["ETag"]
        self.lastModified = pair.1.headers["Last-Modified"]
        self.scope = scope
    }

    /// The scope writes go through: the one it was read from, else where its value came from (the model's own for
    /// a value built by hand).
    func home(for operation: CRUDOperation) throws -> ResourceScope<Model> {
        try scope ?? value.home(for: operation)
    }

    /// The precondition headers a write of this value carries: `If-Match` with a strong ``etag``; else
    /// `If-Unmodified-Since` with ``lastModified``; else none. A weak tag (`W/"…"`) never goes into `If-Match`.
    package var conditions: HTTPHeaders {
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
        Versioned(try await performRead(id: id), scope: self)
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
    /// Replaces the value with `PUT`, sending `If-Match` with its tag.
    /// - Returns: The server's copy with its new tag.
    /// - Throws: ``CRUDError/conflict(_:)`` when the server's copy changed since (412); otherwise ``CRUDError``.
    @_disfavoredOverload
    public func update() async throws -> Versioned<Model> {
        let origin = try home(for: .update)
        return Versioned(try await origin.performUpdate(value, conditions: conditions), scope: origin)
    }

    // twin: future, noasync: the update; spell the model type, via: Model
    /// Sends only the changes since the value was read, with `PATCH` and `If-Match`; nothing changed: nothing is
    /// sent and this value is returned.
    /// - Returns: The server's copy with its new tag, or this value when nothing changed.
    /// - Throws: ``CRUDError/conflict(_:)`` when the server's copy changed since (412); otherwise ``CRUDError``.
    @_disfavoredOverload
    public func updateChanges() async throws -> Versioned<Model> {
        let origin = try home(for: .update)
        guard let pair = try await origin.performPatch(value, from: original, conditions: conditions) else {
            return self
        }
        return Versioned(pair, scope: origin)
    }
}

extension Versioned where Model: Deletable {
    // twin: future, noasync: the delete; write let _: Okay =, via: Model
    /// Deletes the value, sending `If-Match` with its tag.
    /// - Returns: ``Okay``.
    /// - Throws: ``CRUDError/conflict(_:)`` when the server's copy changed since (412); otherwise ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func delete() async throws -> Okay {
        let origin = try home(for: .delete)
        return try await origin.performDelete(origin.memberEndpoint(for: .delete, of: value), conditions: conditions)
    }
}
