import Foundation

/// A value that can be absent, explicitly `null`, or present: the three states a partial update needs.
///
/// In a PATCH body, leaving a key out means "do not change it" and `null` means "clear it". A Swift optional
/// cannot tell those apart; `JSONAttribute` can. Use it as a property type in a `Codable` model (an absent key
/// decodes as ``absent`` and is not encoded; `null` decodes as ``null`` and is encoded as `null`), or in
/// ``JSONAttributable/attributes`` to say exactly what to send.
///
/// ```swift
/// struct PersonPatch: Codable {
///     var nickname: JSONAttribute<String> = .absent  // not sent
///     var email: JSONAttribute<String> = .null       // sent as "email": null
/// }
/// ```
public enum JSONAttribute<Wrapped> {
    /// The key is not there (and is not sent).
    case absent
    /// The key is there with the value `null`.
    case null
    /// The key is there with a value.
    case value(Wrapped)

    /// The present value, or `nil` when absent or null.
    public var wrappedValue: Wrapped? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// Whether the key is not there.
    public var isAbsent: Bool {
        if case .absent = self { return true }
        return false
    }

    /// Whether the key is there with `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// An attribute from an optional: `nil` becomes ``null`` (the field is cleared).
    /// - Parameter optional: The value, if any.
    public init(_ optional: Wrapped?) {
        self = optional.map { .value($0) } ?? .null
    }

    /// An attribute from an optional: `nil` becomes ``absent`` (the field is left alone).
    /// - Parameter optional: The value, if any.
    public init(ifPresent optional: Wrapped?) {
        self = optional.map { .value($0) } ?? .absent
    }

    /// Transforms a present value and keeps ``absent`` and ``null`` as they are.
    /// - Parameter transform: The transformation of the value.
    /// - Returns: The transformed attribute.
    public func map<T>(_ transform: (Wrapped) throws -> T) rethrows -> JSONAttribute<T> {
        switch self {
        case .absent: return .absent
        case .null: return .null
        case .value(let value): return .value(try transform(value))
        }
    }
}

extension JSONAttribute: Sendable where Wrapped: Sendable {}
extension JSONAttribute: Equatable where Wrapped: Equatable {}
extension JSONAttribute: Hashable where Wrapped: Hashable {}

extension JSONAttribute where Wrapped == JSON {
    /// The attribute for a value: present, or ``null`` when the value is `nil` (it clears the field).
    /// - Parameter value: Any value that can be written as JSON.
    /// - Returns: The attribute.
    public static func set(_ value: some JSONWritable) -> JSONAttribute<JSON> {
        let json = value._jsonValue
        return json.isNull ? .null : .value(json)
    }

    /// The attribute for an optional value: present, or ``absent`` when `nil` (the key is not sent).
    /// - Parameter value: The value, if any.
    /// - Returns: The attribute.
    public static func ifPresent<T: JSONWritable>(_ value: T?) -> JSONAttribute<JSON> {
        guard let value else { return .absent }
        return .set(value)
    }

    /// The attribute for a tri-state model property, state for state.
    /// - Parameter attribute: The model's attribute.
    /// - Returns: The same state with the value as JSON.
    public static func from<T: JSONWritable>(_ attribute: JSONAttribute<T>) -> JSONAttribute<JSON> {
        attribute.map(\._jsonValue)
    }
}

// MARK: - Codable

extension JSONAttribute: Decodable where Wrapped: Decodable {
    /// Decodes `null` as ``null`` and anything else as ``value(_:)``. Inside a keyed container an absent key
    /// decodes as ``absent``.
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = container.decodeNil() ? .null : .value(try container.decode(Wrapped.self))
    }
}

extension JSONAttribute: Encodable where Wrapped: Encodable {
    /// Encodes ``value(_:)`` as the value and ``null`` (and, outside a keyed container, ``absent``) as `null`.
    /// Inside a keyed container an ``absent`` attribute is left out.
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .absent, .null: try container.encodeNil()
        case .value(let value): try container.encode(value)
        }
    }
}

extension KeyedDecodingContainer {
    /// Decodes a tri-state attribute: ``JSONAttribute/absent`` when the key is missing, ``JSONAttribute/null``
    /// when it is `null`, the value otherwise. Synthesized `Decodable` conformances call this.
    /// - Parameters:
    ///   - type: The attribute type.
    ///   - key: The key.
    /// - Returns: The attribute.
    /// - Throws: `DecodingError` when the value is there but of the wrong type.
    public func decode<T: Decodable>(_ type: JSONAttribute<T>.Type, forKey key: Key) throws -> JSONAttribute<T> {
        guard contains(key) else { return .absent }
        if try decodeNil(forKey: key) { return .null }
        return .value(try decode(T.self, forKey: key))
    }
}

extension KeyedEncodingContainer {
    /// Encodes a tri-state attribute: nothing for ``JSONAttribute/absent``, `null` for ``JSONAttribute/null``,
    /// the value otherwise. Synthesized `Encodable` conformances call this.
    /// - Parameters:
    ///   - attribute: The attribute.
    ///   - key: The key.
    /// - Throws: What encoding the value throws.
    public mutating func encode<T: Encodable>(_ attribute: JSONAttribute<T>, forKey key: Key) throws {
        switch attribute {
        case .absent: break
        case .null: try encodeNil(forKey: key)
        case .value(let value): try encode(value, forKey: key)
        }
    }
}
