import Foundation

/// A type that can be written as ``JSON``: what ``JSONAttribute/set(_:)`` and `JSON(_:)` take.
///
/// `JSON` itself, ``JSON/Object``, `String`, `Bool`, `Int`, `Int32`, `Int64`, `UInt`, `UInt64`, `Double`, `Float`,
/// `Decimal`, `Date` (an ISO-8601 timestamp), `URL`, `UUID`, optionals (`nil` is `null`), and arrays and string-keyed
/// dictionaries of writable types are writable, and every one of them is ``JSONReadable`` too. Your own types become
/// writable through ``JSONRepresentable`` (or ``JSONAttributable``, for a model).
public protocol JSONWritable {
    /// The value as JSON; what ``JSONRepresentable`` types implement as ``JSONRepresentable/jsonValue``.
    var _jsonValue: JSON { get }
}

/// A type of yours that writes itself as ``JSON``: the building block of ``JSONAttributable/attributes``.
///
/// ```swift
/// enum Role: String, JSONRepresentable {
///     case admin, member
///     var jsonValue: JSON { .string(rawValue) }
/// }
/// ```
///
/// Every ``JSONAttributable`` model conforms through its attributes, so nested models write themselves.
public protocol JSONRepresentable: JSONWritable {
    /// The value as JSON.
    var jsonValue: JSON { get }
}

extension JSONRepresentable {
    /// ``jsonValue``.
    public var _jsonValue: JSON { jsonValue }
}
