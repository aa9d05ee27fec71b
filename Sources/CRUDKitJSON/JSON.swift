import Foundation

/// A JSON document or any value inside one: null, a Boolean, a number, a string, an array or an object.
///
/// `JSON` is a plain value: it is `Sendable`, `Hashable` and `Codable`, and it is built from literals, parsed
/// from bytes with ``init(data:options:)``, or made from any `Encodable` with ``init(encoding:coding:)``.
/// Reading never crashes: a missing key or index reads as ``null``.
///
/// ```swift
/// let json = try JSON(data: body)
/// let name = json["results"][0]["first_name"].string ?? ""
/// let ages = json[path: "results"].array?.compactMap(\.int) ?? []
/// ```
///
/// Numbers keep the exactness of integers that fit in `Int64` (see ``Number``); objects keep their key order
/// (see ``Object``). Two values are equal when they describe the same document: `1` equals `1.0`, and objects
/// are compared without regard to key order.
public enum JSON: Sendable {
    /// The `null` literal.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number: an exact `Int64`, a `Double`, or the text of a number neither holds exactly.
    case number(Number)
    /// A string.
    case string(String)
    /// An ordered list of values.
    case array([JSON])
    /// Members in the order they were parsed or added.
    case object(Object)
}

// MARK: - Building from Swift values

extension JSON {
    /// Any writable value as JSON: `JSON(42)`, `JSON("Ada")`, `JSON(scores)` for a `[String: Float]`, `JSON(person)`
    /// for a ``JSONRepresentable`` model (see ``JSONWritable``).
    /// - Parameter value: The value.
    public init(_ value: some JSONWritable) { self = value._jsonValue }
}

// MARK: - Kinds

extension JSON {
    /// Whether this is ``null``. A missing key or index also reads as `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short description of what this value is, used in error messages: `null`, `a Boolean true`,
    /// `a number 42`, `a string "forty"`, `an array of 3 elements`, `an object with 2 members`.
    package var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return "a Boolean \(value)"
        case .number(let number): return "a number \(number)"
        case .string(let value):
            let shown = value.count > 40 ? String(value.prefix(40)) + "…" : value
            return "a string \(JSON.string(shown))"
        case .array(let values): return "an array of \(values.count) element\(values.count == 1 ? "" : "s")"
        case .object(let object): return "an object with \(object.count) member\(object.count == 1 ? "" : "s")"
        }
    }
}

// MARK: - Equality and hashing

extension JSON: Hashable {
    /// Whether two values describe the same document.
    ///
    /// Numbers compare by value (`1 == 1.0`), strings (and keys) by their UTF-8 bytes with no Unicode normalization
    /// (`"é"` and `"e\u{301}"` are written differently, so they differ), objects compare their members regardless of
    /// order, arrays compare element by element.
    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        // Scalars (and containers that differ at the top) need no stack.
        switch (lhs, rhs) {
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return false }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
        default:
            return shallowEqual(lhs, rhs)
        }
        // Pairs still to compare, kept on an explicit stack: nesting never reaches the thread's stack.
        var pending: [(JSON, JSON)] = [(lhs, rhs)]
        while let (left, right) = pending.popLast() {
            switch (left, right) {
            case (.array(let a), .array(let b)):
                guard a.count == b.count else { return false }
                for position in a.indices {
                    guard shallowEqual(a[position], b[position]) else { return false }
                    if a[position].isContainer { pending.append((a[position], b[position])) }
                }
            case (.object(let a), .object(let b)):
                guard a.count == b.count else { return false }
                let theirs = b.entries
                for (position, member) in a.entries.enumerated() {
                    // The same order is the common case: compare in place before searching.
                    let other: JSON
                    if position < theirs.count, JSONByteKey.sameBytes(theirs[position].key, member.key) {
                        other = theirs[position].value
                    } else if let found = b[member.key] {
                        other = found
                    } else {
                        return false
                    }
                    guard shallowEqual(member.value, other) else { return false }
                    if member.value.isContainer { pending.append((member.value, other)) }
                }
            default:
                guard shallowEqual(left, right) else { return false }
            }
        }
        return true
    }

    /// Whether two values are equal, comparing arrays and objects only by kind and size.
    private static func shallowEqual(_ lhs: JSON, _ rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        // By their UTF-8 bytes, as keys are: `String`'s `==` would make `"é"` and `"e\u{301}"` one value, and a
        // change of normalization would then be no change (nothing to send).
        case (.string(let a), .string(let b)): return JSONByteKey.sameBytes(a, b)
        case (.array(let a), .array(let b)): return a.count == b.count
        case (.object(let a), .object(let b)): return a.count == b.count
        default: return false
        }
    }

    private var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }

    /// Hashes the value consistently with ``==(_:_:)``.
    ///
    /// Arrays and objects nested more than 8 levels below this value contribute only their kind
    /// and size, which keeps hashing in constant stack space whatever the depth (equal values still hash
    /// equally).
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hash(into: &hasher, levels: Self.hashedLevels)
    }

    /// How many levels of arrays and objects `hash(into:)` looks into.
    static let hashedLevels = 8

    private func hash(into hasher: inout Hasher, levels: Int) {
        switch self {
        case .null: hasher.combine(0 as UInt8)
        case .bool(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .number(let number):
            hasher.combine(2 as UInt8)
            hasher.combine(number)
        case .string(let value):
            hasher.combine(3 as UInt8)
            hasher.combine(JSONByteKey(value))
        case .array(let values):
            hasher.combine(4 as UInt8)
            hasher.combine(values.count)
            guard levels > 0 else { return }
            for value in values { value.hash(into: &hasher, levels: levels - 1) }
        case .object(let object):
            hasher.combine(5 as UInt8)
            hasher.combine(object.count)
            guard levels > 0 else { return }
            // Members without regard to their order, as equality compares them.
            var combined = 0
            for member in object.entries {
                var memberHasher = Hasher()
                memberHasher.combine(JSONByteKey(member.key))
                member.value.hash(into: &memberHasher, levels: levels - 1)
                combined ^= memberHasher.finalize()
            }
            hasher.combine(combined)
        }
    }
}

// MARK: - Description

extension JSON: CustomStringConvertible, CustomDebugStringConvertible {
    /// The value as compact JSON text. Non-finite doubles, which writing refuses, print as `NaN`, `Infinity`
    /// or `-Infinity`.
    public var description: String {
        var writer = JSONWriter(options: [], lenient: true)
        try? writer.write(self)
        return String(decoding: writer.output, as: UTF8.self)
    }

    /// The value as compact JSON text, prefixed with `JSON`.
    public var debugDescription: String { "JSON(\(description))" }
}
