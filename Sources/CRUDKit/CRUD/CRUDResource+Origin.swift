import Foundation

// Where a value's instance writes go: back to the API and parent path it came from (see `ValueOrigins`).

extension ResourceScope {
    /// Records that `model` came through this scope, so that its instance writes come back here.
    func remember(_ model: Model) {
        guard let id = model.id else { return }
        ValueOrigins.shared.record(
            Model.self, id: id.description, api: api, parent: parentSegments, context: API.sharedBlock)
    }

    /// Records each of `models` (see ``remember(_:)``), under one lock.
    func remember(_ models: [Model]) {
        ValueOrigins.shared.record(
            Model.self, ids: models.lazy.compactMap { $0.id?.description }, api: api, parent: parentSegments,
            context: API.sharedBlock)
    }
}

extension CRUDResource {
    /// The scope an instance write of this value goes through: the API and parent path it was read, created or
    /// listed through; the model's own scope (``api``, no parent) for a value built by hand.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` before sending when the origin is ambiguous (the same id came
    ///   from several places), its API no longer exists, or it may have been forgotten.
    func home(for operation: CRUDOperation) throws -> ResourceScope<Self> {
        guard let id, case let text = id.description, !text.isEmpty else { return Self.scope }
        let api = Self.api
        switch origin() {
        case .origin(let origin, let parent):
            return ResourceScope(api: origin, parentSegments: parent)
        case .unknown:
            return ResourceScope(api: api)
        case .refused(let why):
            throw CRUDError.invalidRequest(
                reason: "\(Self.self) \(text): \(operation) not sent, because \(why); send it through the scope it "
                    + "belongs to (\(Self.self).using(api).\(operation.scopeCall), or "
                    + "\(Self.self).scoped(to: parent).\(operation.scopeCall))")
        }
    }
}

extension CRUDResource {
    /// Where this value came from (see `ValueOrigins`); `.unknown` for a value without an id.
    func origin() -> ValueOrigins.Resolution {
        guard let id, case let text = id.description, !text.isEmpty else { return .unknown }
        let place = ValueOrigins.Place(api: ObjectIdentifier(Self.api), parent: [])
        return ValueOrigins.shared.resolve(Self.self, id: text, home: place, context: API.sharedBlock)
    }
}

extension CRUDOperation {
    /// How the scope's form of this operation is spelled in an error's advice.
    fileprivate var scopeCall: String {
        switch self {
        case .create: "create(value)"
        case .read: "read(id:)"
        case .update: "update(value)"
        case .delete: "delete(id:)"
        case .list: "list()"
        }
    }
}
