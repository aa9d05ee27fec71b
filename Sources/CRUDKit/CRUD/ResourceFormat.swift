import Foundation

/// How a model travels in bodies: as its own JSON object (``plain``), or inside a JSON:API document (``jsonAPI``).
///
/// Set by the conventions (``APIConventions/format``): ``APIConventions/jsonAPI`` uses ``jsonAPI``, every other
/// preset ``plain``. A model whose own mapping already writes and reads JSON:API documents keeps them with
/// `api.with { $0.format = .plain }` from its ``CRUDResource/conventions(from:)``.
public struct ResourceFormat: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Sendable, Hashable {
        case plain
        case jsonAPI
    }

    private let kind: Kind

    /// The model's JSON object is the body, and an answer's object is the model (under a root key when the model
    /// or the conventions name one).
    public static let plain = ResourceFormat(kind: .plain)

    /// JSON:API (jsonapi.org, version 1.0/1.1): a model is written as a resource object, `{"data": {"type", "id",
    /// "attributes", "relationships"}}`, and read from one (its `id` string as the model's id type, its
    /// attributes as the model's keys, its relationships as the ``JSONAPIRelationship``s a ``JSONAPIResource``
    /// declares, related resources from `included`).
    ///
    /// - `create()` sends `{"data": {"type", "attributes", "relationships"}}` (an `id` only when the model has one);
    ///   under a parent (`Post.scoped(to: ada)`), the first to-one relationship declared to the parent's model
    ///   carries the parent when the model leaves it `nil`.
    /// - `update(from:)` sends a `PATCH` with `type`, `id` and only what changed, inside `attributes` and
    ///   `relationships`.
    /// - `update()` sends a `PATCH` with `type`, `id` and every attribute and relationship (`nil` ones as `null`
    ///   unless ``APIConventions/putNilEncoding`` says otherwise): JSON:API has no `PUT`.
    public static let jsonAPI = ResourceFormat(kind: .jsonAPI)

    /// `plain` or `jsonAPI`.
    public var description: String {
        switch kind {
        case .plain: "plain"
        case .jsonAPI: "jsonAPI"
        }
    }

    /// Whether models are written and read as JSON:API resource objects.
    var isJSONAPI: Bool { kind == .jsonAPI }
}
