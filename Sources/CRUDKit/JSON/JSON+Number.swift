import Foundation

extension JSON {
    /// A JSON number: an exact 64-bit integer, or a double.
    ///
    /// The parser makes an ``int(_:)`` of every number written without a fraction or exponent that fits in
    /// `Int64`, so an id such as `9007199254740993` survives parsing and writing unchanged; every other number
    /// becomes a ``double(_:)``. Numbers too large for a `Double` are refused when parsing.
    ///
    /// Two numbers are equal when they have the same value: `.int(1) == .double(1.0)`, but
    /// `.int(9007199254740993) != .double(9007199254740992)`.
    public enum Number: Sendable {
        /// An exact integer.
        case int(Int64)
        /// A floating-point number.
        case double(Double)

        /// The number as a double (integers beyond 2⁵³ are rounded to the nearest double).
        public var doubleValue: Double {
            switch self {
            case .int(let value): return Double(value)
            case .double(let value): return value
            }
        }

        /// The number as an exact `Int64`, or `nil` when it has a fraction or does not fit.
        public var int64Value: Int64? {
            switch self {
            case .int(let value): return value
            case .double(let value): return Int64(exactly: value)
            }
        }
    }
}

extension JSON.Number: Hashable {
    /// Whether both numbers have the same value, whichever case holds them.
    public static func == (lhs: JSON.Number, rhs: JSON.Number) -> Bool {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): return Int64(exactly: b) == a
        }
    }

    /// Hashes the value so that equal numbers hash alike whichever case holds them.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        if let exact = int64Value {
            hasher.combine(exact)
        } else {
            hasher.combine(doubleValue)
        }
    }
}

extension JSON.Number: CustomStringConvertible {
    /// The number as JSON writes it: `42`, `-0.5`, `1e+20`.
    public var description: String {
        switch self {
        case .int(let value): return String(value)
        case .double(let value):
            return value.isFinite ? "\(value)" : (value.isNaN ? "NaN" : (value < 0 ? "-Infinity" : "Infinity"))
        }
    }
}
