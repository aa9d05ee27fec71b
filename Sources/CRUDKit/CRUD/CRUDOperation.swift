/// One of the five operations a model can offer; each may have a path of its own (see ``CRUDResource/path(for:)``).
public enum CRUDOperation: Sendable, Hashable, CaseIterable {
    /// `POST /people`.
    case create
    /// `GET /people/{id}`.
    case read
    /// `PUT /people/{id}` and `PATCH /people/{id}`.
    case update
    /// `DELETE /people/{id}`.
    case delete
    /// `GET /people` (``Enumeratable/list(_:)->[Self]``, ``Enumeratable/page(_:)->Page<Self>`` and
    /// ``Enumeratable/all(_:)``).
    case list
}
