import Foundation

/// A value that can be written as ``JSON``: the building block of ``JSONAttributable/attributes``.
///
/// The standard scalar types, `Date` (an ISO-8601 timestamp), `URL`, `UUID`, optionals (`nil` is `null`),
/// arrays and string-keyed dictionaries of representable values conform. Every ``JSONAttributable`` model
/// conforms through its attributes, so nested models write themselves.
public protocol JSONRepresentable {
    /// The value as JSON.
    var jsonValue: JSON { get }
}

extension JSON: JSONRepresentable {
    /// The value itself.
    public var jsonValue: JSON { self }
}

extension JSON.Object: JSONRepresentable {
    /// The object as a JSON value.
    public var jsonValue: JSON { .object(self) }
}

extension String: JSONRepresentable {
    /// A JSON string.
    public var jsonValue: JSON { .string(self) }
}

extension Bool: JSONRepresentable {
    /// `true` or `false`.
    public var jsonValue: JSON { .bool(self) }
}

extension Double: JSONRepresentable {
    /// A JSON number (writing refuses it if it is not finite).
    public var jsonValue: JSON { .number(.double(self)) }
}

extension Float: JSONRepresentable {
    /// A JSON number holding the nearest double (writing refuses it if it is not finite).
    public var jsonValue: JSON { .number(.double(Double(self))) }
}

extension Int: JSONRepresentable {
    /// An exact JSON number.
    public var jsonValue: JSON { .number(.int(Int64(self))) }
}

extension Int64: JSONRepresentable {
    /// An exact JSON number.
    public var jsonValue: JSON { .number(.int(self)) }
}

extension Int32: JSONRepresentable {
    /// An exact JSON number.
    public var jsonValue: JSON { .number(.int(Int64(self))) }
}

extension UInt: JSONRepresentable {
    /// An exact JSON number (above `Int64.max`, its digits).
    public var jsonValue: JSON { .number(JSON.Number(exactly: self)) }
}

extension UInt64: JSONRepresentable {
    /// An exact JSON number (above `Int64.max`, its digits).
    public var jsonValue: JSON { .number(JSON.Number(exactly: self)) }
}

extension Date: JSONRepresentable {
    /// An ISO-8601 timestamp in UTC, with the fraction digits the date holds (3, 6 or 9; none for a whole second).
    /// A date no timestamp can name (outside the years 0000–9999, or not finite) is its seconds since 1970 as a
    /// number, or `null` when not finite.
    public var jsonValue: JSON {
        if let text = ISO8601Timestamp.string(from: self) { return .string(text) }
        let seconds = timeIntervalSince1970
        return seconds.isFinite ? .number(.double(seconds)) : .null
    }
}

extension URL: JSONRepresentable {
    /// The absolute string.
    public var jsonValue: JSON { .string(absoluteString) }
}

extension UUID: JSONRepresentable {
    /// The UUID string.
    public var jsonValue: JSON { .string(uuidString) }
}

extension Optional: JSONRepresentable where Wrapped: JSONRepresentable {
    /// The wrapped value, or `null`.
    public var jsonValue: JSON { self?.jsonValue ?? .null }
}

extension Array: JSONRepresentable where Element: JSONRepresentable {
    /// A JSON array.
    public var jsonValue: JSON { .array(map(\.jsonValue)) }
}

extension Dictionary: JSONRepresentable where Key == String, Value: JSONRepresentable {
    /// A JSON object with the keys in ascending order, so the output is stable.
    public var jsonValue: JSON {
        .object(
            JSON.Object(uniqueEntries: sorted { $0.key < $1.key }.map { .init(key: $0.key, value: $0.value.jsonValue) })
        )
    }
}

extension Decimal: JSONRepresentable {
    /// A JSON number with every digit of the decimal (writing refuses a NaN decimal).
    public var jsonValue: JSON {
        .number(isFinite ? JSON.Number(validText: description) ?? .double(.nan) : .double(.nan))
    }
}
