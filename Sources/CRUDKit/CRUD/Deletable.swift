import Foundation

/// A model that can be deleted: `DELETE /people/12`, answering ``Okay`` (a `204` with no body is fine).
///
/// ```swift
/// try await ada.delete()
/// try await Person.delete(id: 12)
/// ```
public protocol Deletable: CRUDResource {}

extension ResourceScope where Model: Deletable {
    // twin: future, noasync: the delete; write let _: Okay =
    /// Deletes the value with `id`: `DELETE /people/{id}`.
    /// - Parameter id: The id, sent as one percent-encoded segment.
    /// - Returns: ``Okay``.
    /// - Throws: ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func delete(id: Model.ID) async throws -> Okay {
        try await performDelete(memberEndpoint(for: .delete, id: id))
    }

    func performDelete(_ endpoint: Endpoint, conditions: HTTPHeaders = [:]) async throws -> Okay {
        _ = try await exchange(.delete, endpoint, headers: conditions)
        return Okay()
    }
}

extension Deletable {
    // twin: future, noasync: the delete; write let _: Okay =
    /// Deletes the value with `id`: `DELETE /people/{id}`.
    /// - Parameter id: The id.
    /// - Returns: ``Okay``.
    /// - Throws: ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public static func delete(id: ID) async throws -> Okay {
        let scope = scope
        return try await scope.performDelete(scope.memberEndpoint(for: .delete, id: id))
    }

    // twin: future, noasync: the delete; write let _: Okay =
    /// Deletes this value on the server.
    /// - Returns: ``Okay``.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` before sending when there is no id; otherwise ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func delete() async throws -> Okay {
        let origin = try home(for: .delete)
        return try await origin.performDelete(origin.memberEndpoint(for: .delete, of: self))
    }
}
