import Foundation

/// A model that can be read by its id: `GET /people/12`.
///
/// ```swift
/// let ada = try await Person.read(id: 12)        // async
/// Person.read(id: 12).onSuccess { ada in … }     // Future
/// let fresh = try await ada.read()                // a new value; `ada` is not changed
/// ```
public protocol Readable: CRUDResource {}

extension ResourceScope where Model: Readable {
    // twin: future
    /// Reads the value with `id`: `GET /people/{id}` (under this scope's parent, if any).
    /// - Parameters:
    ///   - id: The id, sent as one percent-encoded path segment.
    ///   - headers: Extra headers for this request.
    /// - Returns: The server's value.
    /// - Throws: ``CRUDError`` (``CRUDError/isNotFound`` for a 404).
    @_disfavoredOverload
    public func read(id: Model.ID, headers: HTTPHeaders = [:]) async throws -> Model {
        try await performRead(id: id, headers: headers).0
    }

    func performRead(id: Model.ID, headers: HTTPHeaders = [:]) async throws -> (Model, HTTPResponse) {
        try await fetchOne(memberEndpoint(for: .read, id: id), headers: headers)
    }

    func performRead(_ model: Model, headers: HTTPHeaders = [:]) async throws -> (Model, HTTPResponse) {
        try await fetchOne(memberEndpoint(for: .read, of: model), headers: headers)
    }
}

extension Readable {
    // twin: future
    /// Reads the value with `id`: `GET /people/{id}`.
    ///
    /// ```swift
    /// let ada = try await Person.read(id: 12)
    /// ```
    /// - Parameter id: The id, sent as one percent-encoded path segment (`"a/b"` stays one segment).
    /// - Returns: The server's value.
    /// - Throws: ``CRUDError`` (``CRUDError/isNotFound`` for a 404).
    @_disfavoredOverload
    public static func read(id: ID) async throws -> Self {
        try await scope.performRead(id: id).0
    }

    // twin: future
    /// Reads this value again by its id: a new value; this one is not changed.
    /// - Returns: The server's value.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` before sending when there is no id; otherwise ``CRUDError``.
    @_disfavoredOverload
    public func read() async throws -> Self {
        try await home(for: .read).performRead(self).0
    }
}
