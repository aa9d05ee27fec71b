import Foundation

/// The attributes of a value to send to a server, in order, where leaving a key out and sending `null` differ.
///
/// `.absent` entries are left out of the body; `.null` is sent as `null`. Use ``JSONAttribute/set(_:)`` for a
/// value (an optional that is `nil` becomes `null`), ``JSONAttribute/ifPresent(_:)`` to leave a `nil` out, and
/// ``JSONAttribute/from(_:)`` for a model property that is itself a ``JSONAttribute``.
public typealias JSONAttributes = KeyValuePairs<String, JSONAttribute<JSON>>

/// A type that says, by hand, which JSON attributes represent it: the inverse of ``JSONConvertible``.
///
/// ```swift
/// extension Person: JSONAttributable {
///     var attributes: JSONAttributes {
///         [
///             "id": .ifPresent(id),                  // a new person has no id: the key is left out
///             "first_name": .set(firstName),
///             "favorite_color": .set(favoriteColor),  // nil is sent as null, clearing it
///         ]
///     }
/// }
/// ```
///
/// Conforming types are ``JSONRepresentable``: ``JSONRepresentable/jsonValue`` is the object of their present
/// attributes, so a model can nest others (`"people": .set(people)`).
public protocol JSONAttributable: JSONRepresentable {
    /// The attributes to send, in the order to send them.
    var attributes: JSONAttributes { get }
}

extension JSONAttributable {
    /// The object of every attribute that is not ``JSONAttribute/absent``, in order.
    public var jsonValue: JSON {
        var object = JSON.Object()
        for (key, attribute) in attributes {
            switch attribute {
            case .absent: continue
            case .null: object[key] = .null
            case .value(let value): object[key] = value
            }
        }
        return .object(object)
    }
}
