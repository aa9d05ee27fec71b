import Foundation

/// A model that can be created: `POST /people` with its attributes.
///
/// ```swift
/// let made = try await Person(firstName: "Ada", lastName: "Lovelace").create()   // made.id is set
/// ```
///
/// The answer is the server's copy. When the server answers without a body (`204`, or `201` with only a
/// `Location` header), the new value is read back from `Location`, or by its id when the model had one.
public protocol Creatable: WritableResource {}

extension ResourceScope where Model: Creatable {
    // twin: future, noasync: the create; spell the model type
    /// Creates `model` in this scope's collection: `POST /people` (or `/people/12/posts`).
    /// - Parameter model: The value to create; its id, if any, is sent as the model encodes it.
    /// - Returns: The server's copy.
    /// - Throws: ``CRUDError`` (see ``CRUDError/fieldErrors`` for a validation failure).
    @discardableResult
    @_disfavoredOverload
    public func create(_ model: Model) async throws -> Model {
        try await performCreate(model).0
    }

    func performCreate(_ model: Model) async throws -> (Model, HTTPResponse) {
        let endpoint = try collectionEndpoint(for: .create)
        let body = try creation(for: model)
        let response = try await exchange(.post, endpoint, body: body)
        let id = model.id.map(\.description).flatMap { $0.isEmpty ? nil : $0 }
        return try await written(response, id: id)
    }
}

extension Creatable {
    // twin: future, noasync: the create; spell the model type
    /// Creates this value on the server: `POST /people` with its attributes.
    /// - Returns: The server's copy (with its id); this value is not changed.
    /// - Throws: ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func create() async throws -> Self {
        try await Self.scope.performCreate(self).0
    }
}
