/// The generator's picture of the Swift it writes: structs, enums, unions and aliases, before they are text.
indirect enum Declaration: Sendable, Hashable {
    case structure(Structure)
    case stringEnum(StringEnum)
    case union(Union)
    case alias(name: String, type: String, description: String?)

    var name: String {
        switch self {
        case .structure(let value): value.name
        case .stringEnum(let value): value.name
        case .union(let value): value.name
        case .alias(let name, _, _): name
        }
    }
}

/// How a property is held and written, from the schema's `required`, `nullable`, `readOnly` and `writeOnly`.
enum PropertyShape: Sendable, Hashable {
    /// Required and not nullable: `T`, always read and written.
    case value
    /// Required and nullable: `T?`, `nil` written as `null`.
    case nullable
    /// Not required and not nullable: `T?`, `nil` never written (the key is left out).
    case optional
    /// Not required and nullable: `JSONAttribute<T>`, absent, `null` or a value, each written as it is.
    case attribute
}

/// One stored property of a generated struct.
struct Property: Sendable, Hashable {
    /// The key as the document spells it.
    var key: String
    /// The Swift name.
    var name: String
    /// The Swift type of the value, without optionality.
    var type: String
    var shape: PropertyShape
    var description: String?
    /// Read from answers (in the read schema and not `writeOnly`).
    var decoded: Bool
    /// Written in request bodies (in the request schema and not `readOnly`).
    var encoded: Bool
    /// Stored in a box (`@Indirect`): the property's type contains the struct that holds it (a recursive schema).
    var indirect = false

    /// The declared Swift type.
    var declaredType: String {
        switch shape {
        case .value: type
        case .nullable, .optional: "\(type)?"
        case .attribute: "JSONAttribute<\(type)>"
        }
    }

    /// The default in the memberwise initializer, if any.
    var defaultValue: String? {
        switch shape {
        case .value: nil
        case .nullable, .optional: "nil"
        case .attribute: ".absent"
        }
    }
}

/// What makes a struct a CRUDKit resource.
struct ResourceInfo: Sendable, Hashable {
    /// `people`, or `posts` under a parent.
    var path: String
    /// The paths as the document spells them, for the doc comment.
    var spelledPaths: [String]
    var idType: String
    /// The property that holds the id (`id`), or `nil` when a stored `id` not read from answers is added.
    var idProperty: String?
    var conformances: [String]
    var trailingSlash: Bool?
    /// A `Pagination` expression when the list's envelope names one.
    var pagination: String?
    /// The parent's type, for a nested collection (`Person` for `people/{person_pk}/posts`).
    var parent: String?
    var actions: [Action]
    /// The parent's collection path (`people`) of a model that lives only under a parent model, written as the
    /// model's `parentPath` so that a call without a parent is refused instead of sent to the top level.
    var parentPath: String? = nil
}

/// A custom action: a typed method that calls CRUDKit's `action(_:_:…)`.
struct Action: Sendable, Hashable {
    var name: String
    var method: String
    var subpath: String
    var onMember: Bool
    var bodyType: String?
    /// The decoded answer type, or `nil` for `Okay`.
    var resultType: String?
    var resultIsModel: Bool
    var resultIsModels: Bool
    var summary: String?
    var spelled: String
}

struct Structure: Sendable, Hashable {
    var name: String
    var description: String?
    var properties: [Property]
    var nested: [Declaration]
    /// `additionalProperties` beside properties: the type of the extra members' values.
    var additionalType: String?
    var resource: ResourceInfo?
}

/// A string or integer enum that keeps a value it does not list as `unknown`.
struct StringEnum: Sendable, Hashable {
    var name: String
    var description: String?
    /// The values as the document spells them (integers in decimal).
    var values: [String]
    /// The values are integers: the raw value is an `Int`.
    var integer = false
}

struct Union: Sendable, Hashable {
    var name: String
    /// An `indirect enum`: a payload contains the union itself (a recursive schema).
    var indirect = false
    var description: String?
    /// The discriminator's key.
    var key: String
    /// (value, case name, payload type)
    var cases: [UnionCase]
}

struct UnionCase: Sendable, Hashable {
    var value: String
    var name: String
    var type: String
}
