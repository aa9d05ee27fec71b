import Foundation

extension JSON {
    /// A JSON number: an exact 64-bit integer, a double, or — when neither holds it exactly — its text.
    ///
    /// The parser makes an ``int(_:)`` of every number written without a fraction or exponent that fits in
    /// `Int64`, so an id such as `9007199254740993` survives parsing and writing unchanged. Other numbers become a
    /// ``double(_:)`` when the double gives the same number back when written (`0.1`, `2.5e-3`,
    /// `0.30000000000000004`: every number a JavaScript or Python server writes for a double). A number that would
    /// lose digits as a double keeps its text in a ``literal(_:)``: `1234567890.123456789`,
    /// `99999999999999999999`, `18446744073709551615`. Such a number decodes exactly as `Decimal`, `UInt64` or any
    /// integer type that holds it, and is written back byte for byte. Numbers too large for a `Double` are refused
    /// when parsing.
    ///
    /// Two numbers are equal, and hash alike, when they have the same value, whatever the case and the spelling:
    /// `.int(1) == .double(1.0)` (so `1` and `1.0` in a document are equal), `-0` equals `0`, and the
    /// ``literal(_:)`` `100000000000000000000` (how JavaScript writes `1e20`) equals `.double(1e20)`, which holds
    /// that value exactly. A value is compared exactly, never rounded: `.int(9007199254740993) !=
    /// .double(9007199254740992)`, and a literal of a value no `Double` holds (`0.1000000000000000000001`) equals
    /// no double. Literals equal the literals of the same value (`1.50` and `1.5`).
    public enum Number: Sendable {
        /// An exact integer.
        case int(Int64)
        /// A floating-point number.
        case double(Double)
        /// A number that neither `Int64` nor `Double` holds exactly, kept as its JSON text. Make one with
        /// `JSON.Number(_:)` from a string.
        case literal(Literal)

        /// The number as a double (integers beyond 2⁵³ and long literals are rounded to the nearest double).
        public var doubleValue: Double {
            switch self {
            case .int(let value): return Double(value)
            case .double(let value): return value
            case .literal(let literal): return Double(literal.text) ?? .nan
            }
        }

        /// The number as a `Double` when it is within `Double`'s range: `nil` beyond it (`1e400`), and for a number
        /// other than zero that is so small it would be read as zero (`1e-400`), as `JSONDecoder` refuses both.
        var doubleWithinRange: Double? {
            let double = doubleValue
            guard double.isFinite else { return nil }
            if double == 0, case .literal(let literal) = self, !literal.digits.isZero { return nil }
            return double
        }

        /// The number as an exact `Int64`, or `nil` when it has a fraction or does not fit.
        package var int64Value: Int64? { exactly(Int64.self) }

        /// The number as an exact `UInt64`, or `nil` when it is negative, has a fraction or does not fit.
        package var uint64Value: UInt64? { exactly(UInt64.self) }

        /// The number as a `Decimal` with exactly the value it was written with; `nil` when `Decimal` cannot hold
        /// it: significant digits that do not fit in its 128-bit mantissa (every 38-digit number fits, 39-digit ones
        /// up to 2^128 − 1 do, `1.000000000000000000000000000000000000001` does not), or beyond `Decimal`'s range.
        /// `JSONDecoder` rounds such a number; CRUDKit never changes an amount silently.
        public var decimalValue: Decimal? {
            switch self {
            case .int(let value): return Decimal(value)
            case .double(let value):
                guard value.isFinite else { return nil }
                return Self.exactDecimal(value.description)
            case .literal(let literal):
                return Self.exactDecimal(literal.text)
            }
        }

        /// The number written in `text`, when `text` is exactly one JSON number (`"12.50"`, `"-3"`, `"1e3"`: no
        /// spaces, no `+`, no `NaN`); `nil` otherwise. Django REST framework and Rails send decimal amounts as such
        /// strings, so that no JSON parser reads them as a `Double`.
        package init?(decimalText text: String) {
            let bytes = text.utf8
            guard let first = bytes.first, let last = bytes.last, bytes.count <= 1_024,
                first == UInt8(ascii: "-") || JSONDecimalDigits.isDigit(first), JSONDecimalDigits.isDigit(last),
                case .number(let number) = try? JSON(string: text)
            else { return nil }
            self = number
        }

        /// `Decimal(string:)` of `text` when the decimal has the same value as the text, else `nil`
        /// (`Decimal(string:)` keeps the digits that fit in 128 bits and drops the rest).
        private static func exactDecimal(_ text: String) -> Decimal? {
            guard let decimal = Decimal(string: text, locale: posix), decimal.isFinite,
                JSONDecimalDigits(decimal.description.utf8) == JSONDecimalDigits(text.utf8)
            else { return nil }
            return decimal
        }

        /// The number as an exact value of an integer type.
        /// - Parameter type: The integer type, such as `Int`, `UInt64` or `Int8`.
        /// - Returns: The value, or `nil` when the number has a fraction or does not fit in `type` (it is never
        ///   rounded: `9007199254740993.5` is `nil` for every integer type).
        public func exactly<I: FixedWidthInteger>(_ type: I.Type) -> I? {
            switch self {
            case .int(let value): return I(exactly: value)
            case .double(let value): return I(exactly: value)
            case .literal(let literal): return JSONDecimalDigits(literal.text.utf8).integer(I.self)
            }
        }

        static let posix = Locale(identifier: "en_US_POSIX")
    }
}

extension JSON.Number: Hashable {
    /// Whether both numbers have the same value, whichever case holds them and however they were spelled.
    public static func == (lhs: JSON.Number, rhs: JSON.Number) -> Bool {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return a == b
        // NaN equals NaN: `Hashable` needs every value equal to itself.
        case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): return Int64(exactly: b) == a
        case (.literal(let a), .literal(let b)): return a.text == b.text || a.digits == b.digits
        // A literal's value, when an `Int64` or a `Double` holds it exactly (`100000000000000000000`, `1e20`).
        case (.literal(let a), .int(let b)), (.int(let b), .literal(let a)): return a.digits.integer(Int64.self) == b
        case (.literal(let a), .double(let b)), (.double(let b), .literal(let a)): return a.exactDouble == b
        }
    }

    /// Hashes the value so that equal numbers hash alike whichever case holds them: as an `Int64` when one holds
    /// it exactly, else as a `Double` when one does, else by its digits.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .literal(let literal):
            let digits = literal.digits
            if let exact = digits.integer(Int64.self) {
                hasher.combine(exact)
            } else if let exact = literal.exactDouble {
                hasher.combine(exact)
            } else {
                hasher.combine(digits)
            }
        default:
            if let exact = int64Value {
                hasher.combine(exact)
            } else if doubleValue.isNaN {
                hasher.combine(Double.nan)
            } else {
                hasher.combine(doubleValue)
            }
        }
    }
}

extension JSON.Number: CustomStringConvertible {
    /// The number as JSON writes it: `42`, `-0.5`, `1e+20`, `1234567890.123456789`.
    public var description: String {
        switch self {
        case .int(let value): return String(value)
        case .double(let value):
            return value.isFinite ? "\(value)" : (value.isNaN ? "NaN" : (value < 0 ? "-Infinity" : "Infinity"))
        case .literal(let literal): return literal.text
        }
    }
}
