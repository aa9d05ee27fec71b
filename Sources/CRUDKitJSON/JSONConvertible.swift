import Foundation

/// A type mapped by hand from a ``JSON`` value, failing with a ``JSONMappingError`` that names the key.
///
/// ```swift
/// struct Person: JSONConvertible {
///     let id: Int
///     let firstName: String
///     let favoriteColor: String?
///
///     init(json: JSON) throws {
///         id = try json.required("id")
///         firstName = try json.required("first_name")
///         favoriteColor = try json.optional("favorite_color")
///     }
/// }
/// ```
///
/// The scalar types, `JSON`, `Date` (ISO-8601, with or without fractional seconds), `URL`, `UUID`, optionals
/// and arrays of convertible types conform, so ``JSON/required(_:as:)`` reads any of them; an error deep in a
/// nested model or array names the whole path, such as `results[3].age`.
public protocol JSONConvertible {
    /// Maps a JSON value.
    /// - Parameter json: The value (already unwrapped from any envelope).
    /// - Throws: ``JSONMappingError`` when the value does not have the expected shape.
    init(json: JSON) throws
}

// MARK: - Reading members

extension JSON {
    /// The value of `key` mapped to `T`; fails when the key is absent, `null` or of the wrong kind.
    /// - Parameters:
    ///   - key: The key (taken literally).
    ///   - type: The type to map to (usually inferred).
    /// - Returns: The mapped value.
    /// - Throws: ``JSONMappingError`` naming the key path, the expected type and what was found.
    public func required<T: JSONConvertible>(_ key: String, as type: T.Type = T.self) throws -> T {
        guard case .object(let object) = self else {
            throw JSONMappingError.mismatch(expected: "an object", found: self)
        }
        guard let value = object[key] else {
            throw JSONMappingError(components: [.key(key)], expected: "\(T.self)", found: "nothing")
        }
        return try Self.map(value, as: T.self, at: .key(key))
    }

    /// The value of `key` mapped to `T`, or `nil` when the key is absent or `null`; fails on the wrong kind.
    /// - Parameters:
    ///   - key: The key (taken literally).
    ///   - type: The type to map to (usually inferred).
    /// - Returns: The mapped value, or `nil`.
    /// - Throws: ``JSONMappingError`` naming the key path, the expected type and what was found.
    public func optional<T: JSONConvertible>(_ key: String, as type: T.Type = T.self) throws -> T? {
        guard case .object(let object) = self else {
            throw JSONMappingError.mismatch(expected: "an object", found: self)
        }
        guard let value = object[key], !value.isNull else { return nil }
        return try Self.map(value, as: T.self, at: .key(key))
    }

    /// The value of `key` as a tri-state: absent, `null`, or mapped to `T`.
    /// - Parameters:
    ///   - key: The key (taken literally).
    ///   - type: The type to map a present value to.
    /// - Returns: The attribute.
    /// - Throws: ``JSONMappingError`` when a present value is of the wrong kind.
    public func attribute<T: JSONConvertible>(_ key: String, as type: T.Type) throws -> JSONAttribute<T> {
        guard case .object(let object) = self else {
            throw JSONMappingError.mismatch(expected: "an object", found: self)
        }
        switch object[key] {
        case nil: return .absent
        case .null?: return .null
        case let value?: return .value(try Self.map(value, as: T.self, at: .key(key)))
        }
    }

    /// The error for a mapping nested deeper than the thread's stack holds (in a frame of its own, so that
    /// ``map(_:as:at:)``, which every level of a recursive mapping goes through, stays small).
    @inline(never)
    private static func nestedTooDeeply() -> JSONMappingError {
        JSONMappingError(
            keyPath: "", expected: "a value nested less deeply",
            found: "models nested deeper than this thread's stack holds")
    }

    static func map<T: JSONConvertible>(_ value: JSON, as type: T.Type, at step: JSONPathComponent) throws -> T {
        // A recursive mapping (`replies: [Comment]`) nests one `init(json:)` in another: refuse to go on when the
        // thread's stack is nearly used up (see `StackLimit`), rather than crash.
        do {
            if StackLimit.isNearlyExhausted() { throw nestedTooDeeply() }
            return try T(json: value)
        } catch let error as JSONMappingError {
            throw error.prefixed(with: step)
        }
    }
}

// MARK: - Conformances

extension JSON: JSONConvertible {
    /// The value itself.
    /// - Parameter json: The value.
    public init(json: JSON) { self = json }
}

extension String: JSONConvertible {
    /// A JSON string.
    /// - Parameter json: The value.
    /// - Throws: ``JSONMappingError`` when it is not a string.
    public init(json: JSON) throws {
        guard let value = json.string else { throw JSONMappingError.mismatch(expected: "String", found: json) }
        self = value
    }
}

extension Bool: JSONConvertible {
    /// `true` or `false`.
    /// - Parameter json: The value.
    /// - Throws: ``JSONMappingError`` when it is not a Boolean.
    public init(json: JSON) throws {
        guard let value = json.bool else { throw JSONMappingError.mismatch(expected: "Bool", found: json) }
        self = value
    }
}

extension Int: JSONConvertible {
    /// A number with an integral value that fits in `Int`.
    /// - Parameter json: The value.
    /// - Throws: ``JSONMappingError`` when it is not such a number.
    public init(json: JSON) throws {
        guard let value = json.int else { throw JSONMappingError.mismatch(expected: "Int", found: json) }
        self = value
    }
}

extension Int64: JSONConvertible {
    /// A number with an integral value that fits in `Int64`.
    /// - Parameter json: The value.
    /// - Throws: ``JSONMappingError`` when it is not such a number.
    public init(json: JSON) throws {
        guard let value = json.int64 else { throw JSONMappingError.mismatch(expected: "Int64", found: json) }
        self = value
    }
}

extension UInt64: JSONConvertible {
    /// A number with an integral value that fits in `UInt64`, taken exactly.
    /// - Parameter json: The value.
    /// - Throws: ``JSONMappingError`` when it is not such a number.
    public init(json: JSON) throws {
        guard let value = json.uint64 else { throw JSONMappingError.mismatch(expected: "UInt64", found: json) }
        self = value
    }
}

extension Decimal: JSONConvertible {
    /// Any number `Decimal` can hold, with every digit it was written with.
    /// - Parameter json: The value.
    /// - Throws: ``JSONMappingError`` when it is not such a number.
    public init(json: JSON) throws {
        guard let value = json.decimal else { throw JSONMappingError.mismatch(expected: "Decimal", found: json) }
        self = value
    }
}

extension Double: JSONConvertible {
    /// Any number.
    /// - Parameter json: The value.
    /// - Throws: ``JSONMappingError`` when it is not a number.
    public init(json: JSON) throws {
        guard let value = json.double else { throw JSONMappingError.mismatch(expected: "Double", found: json) }
        self = value
    }
}

extension Date: JSONConvertible {
    /// An ISO-8601 timestamp, with or without fractional seconds.
    /// - Parameter json: The value.
    /// - Throws: ``JSONMappingError`` when it is not such a string.
    public init(json: JSON) throws {
        guard let text = json.string, let date = ISO8601Timestamp.date(from: text) else {
            throw JSONMappingError.mismatch(expected: "an ISO-8601 date", found: json)
        }
        self = date
    }
}

extension URL: JSONConvertible {
    /// A string holding a URL.
    /// - Parameter json: The value.
    /// - Throws: ``JSONMappingError`` when it is not such a string.
    public init(json: JSON) throws {
        guard let text = json.string, let url = URL(string: text) else {
            throw JSONMappingError.mismatch(expected: "a URL", found: json)
        }
        self = url
    }
}

extension UUID: JSONConvertible {
    /// A string holding a UUID.
    /// - Parameter json: The value.
    /// - Throws: ``JSONMappingError`` when it is not such a string.
    public init(json: JSON) throws {
        guard let text = json.string, let uuid = UUID(uuidString: text) else {
            throw JSONMappingError.mismatch(expected: "a UUID", found: json)
        }
        self = uuid
    }
}

extension Optional: JSONConvertible where Wrapped: JSONConvertible {
    /// `nil` for `null`, otherwise the wrapped type's mapping.
    /// - Parameter json: The value.
    /// - Throws: What the wrapped type's mapping throws.
    public init(json: JSON) throws {
        self = json.isNull ? nil : try Wrapped(json: json)
    }
}

extension Array: JSONConvertible where Element: JSONConvertible {
    /// An array whose elements all map; an error names the failing index.
    /// - Parameter json: The value.
    /// - Throws: ``JSONMappingError`` when it is not an array or an element does not map.
    public init(json: JSON) throws {
        guard case .array(let values) = json else { throw JSONMappingError.mismatch(expected: "an array", found: json) }
        var result: [Element] = []
        result.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            result.append(try JSON.map(value, as: Element.self, at: .index(index)))
        }
        self = result
    }
}
