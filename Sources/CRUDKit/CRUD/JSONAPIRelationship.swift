import Foundation

/// A member of a JSON:API resource's `relationships` that a model maps (see ``JSONAPIResource/relationships``).
///
/// The model holds it under the same key as its other fields, as the coding writes keys (`favorite_post` for
/// `favoritePost` with the default snake_case coding), either as the related id (`var person: Int?`, `[Int]` for
/// to-many) or, with `embedded: true`, as the related resource itself (`var person: PersonSummary?`), read from the
/// document's `included` when the server included it (`?include=person`), else as `{"id": …}` alone. Written back,
/// either form becomes a resource identifier `{"type": "people", "id": "3"}`; `nil` becomes `{"data": null}`.
///
/// ```swift
/// static let relationships: [JSONAPIRelationship] = [
///     .toOne("person", Person.self),                       // "person": 3
///     .toMany("tags", Tag.self),                           // "tags": [1, 2]
///     .toOne("editor", Person.self, embedded: true),       // "editor": {"id": 4, "first_name": …}
/// ]
/// ```
public struct JSONAPIRelationship: Sendable, Hashable {
    /// The relationship's name, which is also the model's key for it.
    public var key: String
    /// The related resources' `type`.
    public var type: String
    /// Whether it holds several resources (`[Int]`) rather than one (`Int?`).
    public var isToMany: Bool
    /// Whether the model holds the related resources themselves (from `included`) rather than their ids.
    public var isEmbedded: Bool
    /// Whether related ids are integers (`"3"` read as `3`).
    public var hasNumericIDs: Bool
    /// The collection path segments of the related model, by which a parent scope is recognised; empty for none.
    var relatedPath: [String] = []

    /// A relationship by its parts.
    /// - Parameters:
    ///   - key: The relationship's name and the model's key for it.
    ///   - type: The related resources' `type`.
    ///   - isToMany: Whether it holds several resources.
    ///   - isEmbedded: Whether the model holds the related resources rather than their ids.
    ///   - hasNumericIDs: Whether related ids are integers.
    public init(key: String, type: String, isToMany: Bool = false, isEmbedded: Bool = false, hasNumericIDs: Bool) {
        self.key = key
        self.type = type
        self.isToMany = isToMany
        self.isEmbedded = isEmbedded
        self.hasNumericIDs = hasNumericIDs
    }

    /// A to-one relationship to a model: its type and id type follow `target` (``JSONAPIResource/resourceType``),
    /// and a scope under a `target` value (`Post.scoped(to: ada)`) fills it in on create when the model leaves it
    /// `nil` (the first to-one relationship declared to `target`, when there are several).
    /// - Parameters:
    ///   - key: The relationship's name and the model's key for it.
    ///   - target: The related model.
    ///   - embedded: Whether the model holds the related resource rather than its id.
    /// - Returns: The relationship.
    public static func toOne<Target: CRUDResource>(
        _ key: String, _ target: Target.Type, embedded: Bool = false
    ) -> JSONAPIRelationship {
        related(key, target, toMany: false, embedded: embedded)
    }

    /// A to-many relationship to a model: the model holds an array of ids (or of resources, with `embedded`).
    /// - Parameters:
    ///   - key: The relationship's name and the model's key for it.
    ///   - target: The related model.
    ///   - embedded: Whether the model holds the related resources rather than their ids.
    /// - Returns: The relationship.
    public static func toMany<Target: CRUDResource>(
        _ key: String, _ target: Target.Type, embedded: Bool = false
    ) -> JSONAPIRelationship {
        related(key, target, toMany: true, embedded: embedded)
    }

    private static func related<Target: CRUDResource>(
        _ key: String, _ target: Target.Type, toMany: Bool, embedded: Bool
    ) -> JSONAPIRelationship {
        let resource = Target.self as? any JSONAPIResource.Type
        var relationship = JSONAPIRelationship(
            key: key, type: resource?.resourceType ?? Target.defaultResourceType, isToMany: toMany,
            isEmbedded: embedded, hasNumericIDs: Target.ID.self is any FixedWidthInteger.Type)
        relationship.relatedPath = Target.path.split(separator: "/", omittingEmptySubsequences: true).map(
            String.init)
        return relationship
    }
}
