import Foundation

/// A model that can be deleted: `DELETE /people/12`, answering ``Okay`` (a `204` with no body is fine).
///
/// ```swift
/// try await ada.delete()
/// try await Person.delete(id: 12)
/// ```
public protocol Deletable: CRUDResource {}

extension ResourceScope where Model: Deletable {
    /// Deletes the value with `id`: `DELETE /people/{id}`.
    /// - Parameter id: The id, sent as one percent-encoded segment.
    /// - Returns: ``Okay``.
    /// - Throws: ``CRUDError``.
    @discardableResult
    public func delete(id: Model.ID) async throws -> Okay {
        try await performDelete(memberEndpoint(for: .delete, id: id))
    }

    /// Deletes the value with `id`, as a ``Future``.
    /// - Parameter id: The id.
    /// - Returns: A future of ``Okay``.
    @available(
        *, noasync,
        message:
            "Future overload: only starts the delete. In async code (main.swift too) use @main, or write let _: Okay ="
    )
    @discardableResult
    public func delete(id: Model.ID) -> Future<Okay> {
        future { try await performDelete(memberEndpoint(for: .delete, id: id)) }
    }

    /// Deletes `model` by its id.
    /// - Parameter model: The value to delete; it needs an id.
    /// - Returns: ``Okay``.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` before sending when there is no id; otherwise ``CRUDError``.
    @discardableResult
    public func delete(_ model: Model) async throws -> Okay {
        try await performDelete(memberEndpoint(for: .delete, of: model))
    }

    /// Deletes `model` by its id, as a ``Future``.
    /// - Parameter model: The value to delete; it needs an id.
    /// - Returns: A future of ``Okay``.
    @available(
        *, noasync,
        message:
            "Future overload: only starts the delete. In async code (main.swift too) use @main, or write let _: Okay ="
    )
    @discardableResult
    public func delete(_ model: Model) -> Future<Okay> {
        future { try await performDelete(memberEndpoint(for: .delete, of: model)) }
    }

    func performDelete(_ endpoint: Endpoint, conditions: HTTPHeaders = [:]) async throws -> Okay {
        _ = try await exchange(.delete, endpoint, headers: conditions)
        return Okay()
    }
}

extension Deletable {
    /// Deletes the value with `id`: `DELETE /people/{id}`.
    /// - Parameter id: The id.
    /// - Returns: ``Okay``.
    /// - Throws: ``CRUDError``.
    @discardableResult
    public static func delete(id: ID) async throws -> Okay {
        let scope = scope
        return try await scope.performDelete(scope.memberEndpoint(for: .delete, id: id))
    }

    /// Deletes the value with `id`, as a ``Future``.
    /// - Parameter id: The id.
    /// - Returns: A future of ``Okay``.
    @available(
        *, noasync,
        message:
            "Future overload: only starts the delete. In async code (main.swift too) use @main, or write let _: Okay ="
    )
    @discardableResult
    public static func delete(id: ID) -> Future<Okay> {
        let scope = scope
        return scope.future { try await scope.performDelete(scope.memberEndpoint(for: .delete, id: id)) }
    }

    /// Deletes this value on the server.
    /// - Returns: ``Okay``.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` before sending when there is no id; otherwise ``CRUDError``.
    @discardableResult
    public func delete() async throws -> Okay {
        let scope = Self.scope
        return try await scope.performDelete(scope.memberEndpoint(for: .delete, of: self))
    }

    /// Deletes this value on the server, as a ``Future``.
    /// - Returns: A future of ``Okay``.
    @available(
        *, noasync,
        message:
            "Future overload: only starts the delete. In async code (main.swift too) use @main, or write let _: Okay ="
    )
    @discardableResult
    public func delete() -> Future<Okay> {
        let scope = Self.scope
        return scope.future { try await scope.performDelete(scope.memberEndpoint(for: .delete, of: self)) }
    }
}
