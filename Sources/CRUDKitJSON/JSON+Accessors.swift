import Foundation

// MARK: - Subscripts

extension JSON {
    /// The value of `key` in an object; ``null`` when this is not an object or the key is absent.
    ///
    /// Use `value(forKey:)` or ``attribute(_:as:)`` to tell an absent key from an explicit `null`.
    ///
    /// Setting a key on an object adds or replaces it; setting a key on ``null`` turns it into an object;
    /// setting a key on any other value does nothing.
    public subscript(key: String) -> JSON {
        get {
            guard case .object(let object) = self else { return .null }
            return object[key] ?? .null
        }
        set {
            switch self {
            case .object(var object):
                self = .null  // release the payload so the object is mutated in place
                object[key] = newValue
                self = .object(object)
            case .null:
                self = .object([key: newValue])
            default:
                break
            }
        }
    }

    /// The element at `index` in an array; ``null`` when this is not an array or the index is out of range.
    ///
    /// Setting an element replaces it when the index is in range and does nothing otherwise.
    public subscript(index: Int) -> JSON {
        get {
            guard case .array(let values) = self, values.indices.contains(index) else { return .null }
            return values[index]
        }
        set {
            guard case .array(var values) = self, values.indices.contains(index) else { return }
            self = .null
            values[index] = newValue
            self = .array(values)
        }
    }

    /// The value of `key`: `nil` when the key is absent (or this is not an object), ``null`` when the document
    /// says `null` (so `json.value(forKey: "name") != nil` asks whether the key is there).
    /// - Parameter key: The key to look up.
    /// - Returns: The value, or `nil` when there is none.
    package func value(forKey key: String) -> JSON? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }
}

// MARK: - Optional accessors

extension JSON {
    /// The string, when this is a string.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as an `Int`, when this is a number with an integral value that fits.
    public var int: Int? {
        guard case .number(let number) = self, let exact = number.int64Value else { return nil }
        return Int(exactly: exact)
    }

    /// The number as an `Int64`, when this is a number with an integral value that fits.
    public var int64: Int64? {
        guard case .number(let number) = self else { return nil }
        return number.int64Value
    }

    /// The number as a `UInt64`, when this is a number with an integral value that fits (all of
    /// `18446744073709551615`, never rounded).
    public var uint64: UInt64? {
        guard case .number(let number) = self else { return nil }
        return number.uint64Value
    }

    /// The number as a `Decimal` with every digit it was written with, when this is a number that `Decimal` holds
    /// exactly (significant digits that fit in its 128-bit mantissa: every 38-digit number, 39-digit ones up to
    /// 2^128 − 1; within its range); `nil` otherwise, never a rounded amount.
    ///
    /// A string that is exactly a JSON number (`"12.50"`) counts too: Django REST framework and Rails send
    /// decimal amounts that way.
    public var decimal: Decimal? {
        switch self {
        case .number(let number): number.decimalValue
        case .string(let text): Number(decimalText: text)?.decimalValue
        default: nil
        }
    }

    /// The number as a `Double`, when this is a number.
    public var double: Double? {
        guard case .number(let number) = self else { return nil }
        return number.doubleValue
    }

    /// The number, when this is a number.
    public var number: Number? {
        guard case .number(let number) = self else { return nil }
        return number
    }

    /// The Boolean, when this is `true` or `false`.
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var array: [JSON]? {
        if case .array(let values) = self { return values }
        return nil
    }

    /// The members, when this is an object.
    public var object: Object? {
        if case .object(let object) = self { return object }
        return nil
    }
}
