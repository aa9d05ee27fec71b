import Foundation

// The standard types JSON reads and writes. Each type is here with both directions side by side, so that every
// type that can be written can be read back; the requirements are underscored, so `Int(json:)` or `5.jsonValue`
// do not show in an app's autocomplete (read with `json.int`, `json.convert(Int32.self)` or `required(_:)`;
// write with `JSON(value)`).

extension JSON: JSONReadable, JSONWritable {
    /// The value itself.
    public static func _read(from json: JSON) -> JSON { json }
    /// The value itself.
    public var _jsonValue: JSON { self }
}

extension JSON.Object: JSONReadable, JSONWritable {
    /// The members of an object.
    public static func _read(from json: JSON) throws -> JSON.Object {
        guard let object = json.object else { throw JSONMappingError.mismatch(expected: "an object", found: json) }
        return object
    }
    /// The object as a JSON value.
    public var _jsonValue: JSON { .object(self) }
}

extension String: JSONReadable, JSONWritable {
    /// A JSON string.
    public static func _read(from json: JSON) throws -> String {
        guard let value = json.string else { throw JSONMappingError.mismatch(expected: "String", found: json) }
        return value
    }
    /// A JSON string.
    public var _jsonValue: JSON { .string(self) }
}

extension Bool: JSONReadable, JSONWritable {
    /// `true` or `false`.
    public static func _read(from json: JSON) throws -> Bool {
        guard let value = json.bool else { throw JSONMappingError.mismatch(expected: "Bool", found: json) }
        return value
    }
    /// `true` or `false`.
    public var _jsonValue: JSON { .bool(self) }
}

// MARK: - Integers: exact, and an error when the number has a fraction or does not fit

extension Int: JSONReadable, JSONWritable {
    /// A number with an integral value that fits in `Int` (32 bits on watchOS).
    public static func _read(from json: JSON) throws -> Int {
        guard let value = json.int else { throw JSONMappingError.mismatch(expected: "Int", found: json) }
        return value
    }
    /// An exact JSON number.
    public var _jsonValue: JSON { .number(.int(Int64(self))) }
}

extension Int32: JSONReadable, JSONWritable {
    /// A number with an integral value that fits in `Int32`.
    public static func _read(from json: JSON) throws -> Int32 {
        guard let value = json.int64.flatMap(Int32.init(exactly:)) else {
            throw JSONMappingError.mismatch(expected: "Int32", found: json)
        }
        return value
    }
    /// An exact JSON number.
    public var _jsonValue: JSON { .number(.int(Int64(self))) }
}

extension Int64: JSONReadable, JSONWritable {
    /// A number with an integral value that fits in `Int64`.
    public static func _read(from json: JSON) throws -> Int64 {
        guard let value = json.int64 else { throw JSONMappingError.mismatch(expected: "Int64", found: json) }
        return value
    }
    /// An exact JSON number.
    public var _jsonValue: JSON { .number(.int(self)) }
}

extension UInt: JSONReadable, JSONWritable {
    /// A number with an integral value that fits in `UInt` (not negative; 32 bits on watchOS).
    public static func _read(from json: JSON) throws -> UInt {
        guard let value = json.uint64.flatMap(UInt.init(exactly:)) else {
            throw JSONMappingError.mismatch(expected: "UInt", found: json)
        }
        return value
    }
    /// An exact JSON number (above `Int64.max`, its digits).
    public var _jsonValue: JSON { .number(JSON.Number(exactly: self)) }
}

extension UInt64: JSONReadable, JSONWritable {
    /// A number with an integral value that fits in `UInt64`, taken exactly.
    public static func _read(from json: JSON) throws -> UInt64 {
        guard let value = json.uint64 else { throw JSONMappingError.mismatch(expected: "UInt64", found: json) }
        return value
    }
    /// An exact JSON number (above `Int64.max`, its digits).
    public var _jsonValue: JSON { .number(JSON.Number(exactly: self)) }
}

// MARK: - Floating point and decimals

extension Double: JSONReadable, JSONWritable {
    /// Any number within `Double`'s range (`1e400` is an error, not infinity, and `1e-400` one, not zero).
    public static func _read(from json: JSON) throws -> Double {
        guard let value = json.number?.doubleWithinRange else {
            throw JSONMappingError.mismatch(expected: "Double", found: json)
        }
        return value
    }
    /// A JSON number (writing refuses it if it is not finite).
    public var _jsonValue: JSON { .number(.double(self)) }
}

extension Float: JSONReadable, JSONWritable {
    /// A number within `Float`'s range, rounded to the nearest `Float`; `1e39` (beyond `Float.greatestFiniteMagnitude`)
    /// and `1e-50` (which only `0` would hold) are errors, not infinity or zero.
    public static func _read(from json: JSON) throws -> Float {
        guard let double = json.number?.doubleWithinRange, case let value = Float(double), value.isFinite,
            (value == 0) == (double == 0)
        else { throw JSONMappingError.mismatch(expected: "Float", found: json) }
        return value
    }
    /// A JSON number written as the shortest text that reads back as this `Float` (`0.1`, not
    /// `0.10000000149011612`), as the coders write it (writing refuses it if it is not finite).
    public var _jsonValue: JSON { .number(.double(JSONTreeEncoder.widened(self))) }
}

extension Decimal: JSONReadable, JSONWritable {
    /// Any number `Decimal` can hold, with every digit it was written with.
    public static func _read(from json: JSON) throws -> Decimal {
        guard let value = json.decimal else { throw JSONMappingError.mismatch(expected: "Decimal", found: json) }
        return value
    }
    /// A JSON number with every digit of the decimal (writing refuses a NaN decimal).
    public var _jsonValue: JSON {
        .number(isFinite ? JSON.Number(validText: description) ?? .double(.nan) : .double(.nan))
    }
}

// MARK: - Strings with a meaning

extension Date: JSONReadable, JSONWritable {
    /// An ISO-8601 timestamp, with or without fractional seconds.
    public static func _read(from json: JSON) throws -> Date {
        guard let text = json.string, let date = ISO8601Timestamp.date(from: text) else {
            throw JSONMappingError.mismatch(expected: "an ISO-8601 date", found: json)
        }
        return date
    }
    /// An ISO-8601 timestamp in UTC, with the fraction digits the date holds (3, 6 or 9; none for a whole second).
    /// A date no timestamp can name (outside the years 0000–9999, or not finite) is its seconds since 1970 as a
    /// number, or `null` when not finite.
    public var _jsonValue: JSON {
        if let text = ISO8601Timestamp.string(from: self) { return .string(text) }
        let seconds = timeIntervalSince1970
        return seconds.isFinite ? .number(.double(seconds)) : .null
    }
}

extension URL: JSONReadable, JSONWritable {
    /// A string holding a URL.
    public static func _read(from json: JSON) throws -> URL {
        guard let text = json.string, let url = URL(string: text) else {
            throw JSONMappingError.mismatch(expected: "a URL", found: json)
        }
        return url
    }
    /// The absolute string.
    public var _jsonValue: JSON { .string(absoluteString) }
}

extension UUID: JSONReadable, JSONWritable {
    /// A string holding a UUID.
    public static func _read(from json: JSON) throws -> UUID {
        guard let text = json.string, let uuid = UUID(uuidString: text) else {
            throw JSONMappingError.mismatch(expected: "a UUID", found: json)
        }
        return uuid
    }
    /// The UUID string.
    public var _jsonValue: JSON { .string(uuidString) }
}

// MARK: - Containers

extension Optional: JSONReadable where Wrapped: JSONReadable {
    /// `nil` for `null`, otherwise the wrapped type's reading.
    public static func _read(from json: JSON) throws -> Wrapped? {
        json.isNull ? nil : try Wrapped._read(from: json)
    }
}

extension Optional: JSONWritable where Wrapped: JSONWritable {
    /// The wrapped value, or `null`.
    public var _jsonValue: JSON { self?._jsonValue ?? .null }
}

extension Array: JSONReadable where Element: JSONReadable {
    /// An array whose elements all read; an error names the failing index.
    public static func _read(from json: JSON) throws -> [Element] {
        guard case .array(let values) = json else { throw JSONMappingError.mismatch(expected: "an array", found: json) }
        var result: [Element] = []
        result.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            result.append(try JSON.map(value, as: Element.self, at: .index(index)))
        }
        return result
    }
}

extension Array: JSONWritable where Element: JSONWritable {
    /// A JSON array.
    public var _jsonValue: JSON { .array(map(\._jsonValue)) }
}

extension Dictionary: JSONReadable where Key == String, Value: JSONReadable {
    /// An object whose values all read; an error names the failing key.
    public static func _read(from json: JSON) throws -> [String: Value] {
        guard case .object(let object) = json else {
            throw JSONMappingError.mismatch(expected: "an object", found: json)
        }
        var result: [String: Value] = [:]
        result.reserveCapacity(object.count)
        for (key, value) in object {
            result[key] = try JSON.map(value, as: Value.self, at: .key(key))
        }
        return result
    }
}

extension Dictionary: JSONWritable where Key == String, Value: JSONWritable {
    /// A JSON object with the keys in ascending order, so the output is stable.
    public var _jsonValue: JSON {
        .object(
            JSON.Object(
                uniqueEntries: sorted { $0.key < $1.key }.map { .init(key: $0.key, value: $0.value._jsonValue) })
        )
    }
}
