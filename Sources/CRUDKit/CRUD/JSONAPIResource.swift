import Foundation

/// What a model says about itself as a JSON:API resource (``ResourceFormat/jsonAPI``): its `type` and the
/// relationships it maps. Conforming is optional: without it, the type is the last segment of the model's
/// ``CRUDResource/path`` (`people` for `"api/people"`) and no relationship is mapped.
///
/// ```swift
/// struct Post: CRUDModel, Codable, JSONAPIResource {
///     static let path = "posts"
///     static let relationships: [JSONAPIRelationship] = [.toOne("person", Person.self)]
///     var id: Int?
///     var title: String
///     var person: Int?   // the id of relationships.person; filled from the parent under Post.scoped(to: ada)
/// }
/// ```
public protocol JSONAPIResource: CRUDResource {
    /// The resource object's `type` (`"people"`); the default is the last segment of ``CRUDResource/path``.
    static var resourceType: String { get }

    /// The members of `relationships` this model maps, each to and from the model's key of the same name.
    static var relationships: [JSONAPIRelationship] { get }
}

extension JSONAPIResource {
    /// The last segment of ``CRUDResource/path``.
    public static var resourceType: String { defaultResourceType }

    /// None.
    public static var relationships: [JSONAPIRelationship] { [] }
}

extension CRUDResource {
    /// The last segment of ``path`` (`people` for `"api/people"`).
    static var defaultResourceType: String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    }

    /// What a JSON:API document of this model needs to know about it.
    static var jsonAPIShape: JSONAPIShape {
        let resource = Self.self as? any JSONAPIResource.Type
        return JSONAPIShape(
            type: resource?.resourceType ?? defaultResourceType, relationships: resource?.relationships ?? [],
            numericIDs: ID.self is any FixedWidthInteger.Type)
    }
}

/// A model as a JSON:API resource: its type, the relationships it maps, and whether its ids are integers (JSON:API
/// ids are strings on the wire; an integer id type reads `"12"` as `12`).
struct JSONAPIShape: Sendable {
    var type: String
    var relationships: [JSONAPIRelationship]
    var numericIDs: Bool
}
