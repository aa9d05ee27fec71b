import Foundation

extension JSON: ExpressibleByNilLiteral {
    /// `nil` is ``null``.
    /// - Parameter nilLiteral: Unused.
    public init(nilLiteral: ()) { self = .null }
}

extension JSON: ExpressibleByBooleanLiteral {
    /// `true` or `false`.
    /// - Parameter value: The literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSON: ExpressibleByIntegerLiteral {
    /// An exact integer.
    /// - Parameter value: The literal.
    public init(integerLiteral value: Int64) { self = .number(.int(value)) }
}

extension JSON: ExpressibleByFloatLiteral {
    /// A double.
    /// - Parameter value: The literal.
    public init(floatLiteral value: Double) { self = .number(.double(value)) }
}

extension JSON: ExpressibleByStringLiteral {
    /// A string.
    /// - Parameter value: The literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSON: ExpressibleByArrayLiteral {
    /// An array.
    /// - Parameter elements: The literal's elements.
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
}

extension JSON: ExpressibleByDictionaryLiteral {
    /// An object with the literal's members in the literal's order; a repeated key keeps its last value.
    /// - Parameter elements: The literal's keys and values.
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(Object(elements)) }
}
