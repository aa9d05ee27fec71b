import Foundation

/// A type a ``JSON`` value can be read as: what ``JSON/required(_:as:)``, ``JSON/optional(_:as:)``,
/// ``JSON/attribute(_:as:)`` and ``JSON/convert(_:at:)`` map to.
///
/// `JSON` itself, `String`, `Bool`, `Int`, `Int32`, `Int64`, `UInt`, `UInt64`, `Double`, `Float`, `Decimal`,
/// `Date` (ISO-8601, with or without fractional seconds), `URL`, `UUID`, ``JSON/Object``, and optionals, arrays and
/// string-keyed dictionaries of readable types are readable: every type that is ``JSONWritable`` reads back. A number
/// that does not fit the type (`2147483648` as an `Int32`, `-1` as a `UInt`, `1e39` as a `Float`) is a
/// ``JSONMappingError``, never a changed value. Your own types become readable through ``JSONConvertible``.
///
/// ```swift
/// let port = try json.convert(Int32.self, at: "server.port")
/// let scores: [String: Float] = try json.required("scores")
/// ```
public protocol JSONReadable {
    /// Reads a value; what ``JSONConvertible`` types implement as ``JSONConvertible/init(json:)``.
    static func _read(from json: JSON) throws -> Self
}

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
/// Inside `init(json:)`, ``JSON/required(_:as:)`` reads any ``JSONReadable`` type, conforming models included; an
/// error deep in a nested model or array names the whole path, such as `results[3].age`.
public protocol JSONConvertible: JSONReadable {
    /// Maps a JSON value.
    /// - Parameter json: The value (already unwrapped from any envelope).
    /// - Throws: ``JSONMappingError`` when the value does not have the expected shape.
    init(json: JSON) throws
}

extension JSONConvertible {
    /// ``init(json:)``.
    public static func _read(from json: JSON) throws -> Self { try Self(json: json) }
}

// MARK: - Reading members

extension JSON {
    /// The value of `key` mapped to `T`; fails when the key is absent, `null` or of the wrong kind.
    /// - Parameters:
    ///   - key: The key (taken literally).
    ///   - type: The type to map to (usually inferred).
    /// - Returns: The mapped value.
    /// - Throws: ``JSONMappingError`` naming the key path, the expected type and what was found.
    public func required<T: JSONReadable>(_ key: String, as type: T.Type = T.self) throws -> T {
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
    public func optional<T: JSONReadable>(_ key: String, as type: T.Type = T.self) throws -> T? {
        guard case .object(let object) = self else {
            throw JSONMappingError.mismatch(expected: "an object", found: self)
        }
        guard let value = object[key], !value.isNull else { return nil }
        return try Self.map(value, as: T.self, at: .key(key))
    }

    /// The value of `key` as a tri-state: ``JSONAttribute/absent``, ``JSONAttribute/null``, or mapped to `T`
    /// (`as: JSON.self` for the value as it is).
    /// - Parameters:
    ///   - key: The key (taken literally).
    ///   - type: The type to map a present value to (usually inferred).
    /// - Returns: The attribute.
    /// - Throws: ``JSONMappingError`` when a present value is of the wrong kind.
    public func attribute<T: JSONReadable>(_ key: String, as type: T.Type = T.self) throws -> JSONAttribute<T> {
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

    static func map<T: JSONReadable>(_ value: JSON, as type: T.Type, at step: JSONPathComponent) throws -> T {
        // A recursive mapping (`replies: [Comment]`) nests one `init(json:)` in another: refuse to go on when the
        // thread's stack is nearly used up (see `StackLimit`), rather than crash.
        do {
            if StackLimit.isNearlyExhausted() { throw nestedTooDeeply() }
            return try T._read(from: value)
        } catch let error as JSONMappingError {
            throw error.prefixed(with: step)
        }
    }
}
