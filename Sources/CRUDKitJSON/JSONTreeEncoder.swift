import Foundation

/// An `Encoder` that builds a ``JSON`` tree directly, keeping the order in which a model encodes its keys.
///
/// It follows `JSONEncoder`'s rules: the same key conversion, the same special cases for `Date`, `Data`, `URL`,
/// `Decimal` and string-keyed dictionaries (whose keys are not converted; they are written in ascending key
/// order), `{}` for a value that encodes nothing, and an `EncodingError.invalidValue` for a non-finite number.
final class JSONTreeEncoder: Encoder, SingleValueEncodingContainer {
    /// What this encoder holds: nothing yet, a finished value, or a container being filled.
    enum Slot {
        case value(JSON)
        case object(ObjectBuilder)
        case array(ArrayBuilder)
        case encoder(JSONTreeEncoder)

        var resolved: JSON {
            switch self {
            case .value(let value): return value
            case .object(let builder):
                let entries = builder.members.map { JSON.Object.Entry(key: $0.key, value: $0.slot.resolved) }
                // A model encodes each key once: then the members are the object as they are, without a second array.
                if entries.count <= JSON.Object.indexThreshold, !Self.repeatsKey(entries) {
                    return .object(JSON.Object(uniqueEntries: entries))
                }
                return .object(JSON.Object(entriesKeepingLast: entries))
            case .array(let builder): return .array(builder.items.map(\.resolved))
            case .encoder(let encoder): return encoder.result
            }
        }

        /// Whether two of a few members have the same key.
        private static func repeatsKey(_ entries: [JSON.Object.Entry]) -> Bool {
            for later in entries.indices.dropFirst() {
                let key = entries[later].key
                let length = key.utf8.count
                for earlier in 0..<later where JSON.Object.sameKey(entries[earlier].key, key, length: length) {
                    return true
                }
            }
            return false
        }
    }

    /// An object being filled (a reference, so nested containers can add to it later).
    final class ObjectBuilder {
        /// A member being filled.
        struct Field {
            var key: String
            var slot: Slot
        }

        var members: [Field] = []
        /// The last position of each key among the first ``indexed`` members, for objects above 16 members.
        private var positions: [JSONByteKey: Int] = [:]
        private var indexed = 0

        /// The position of the last member with `key`, or `nil`.
        func lastPosition(of key: String) -> Int? {
            if members.count <= JSON.Object.indexThreshold {
                let length = key.utf8.count
                return members.lastIndex { JSON.Object.sameKey($0.key, key, length: length) }
            }
            while indexed < members.count {
                positions[JSONByteKey(members[indexed].key)] = indexed
                indexed += 1
            }
            return positions[JSONByteKey(key)]
        }

        /// The object builder for a nested keyed container at `key`: the one an earlier container (or super
        /// encoder) for the key is filling, or a finished object there reopened, so that its members are kept
        /// (`JSONEncoder` merges them too); a new member otherwise.
        func nestedObject(forKey key: String) -> ObjectBuilder {
            if let position = lastPosition(of: key) {
                switch members[position].slot {
                case .object(let existing): return existing
                case .value(.object(let object)): return reopen(object, at: position)
                case .encoder(let encoder):
                    if let existing = encoder.openObject() { return existing }
                default: break
                }
            }
            let nested = ObjectBuilder()
            members.append(Field(key: key, slot: .object(nested)))
            return nested
        }

        /// The array builder for a nested unkeyed container at `key`: an earlier one for the key, to append to (as
        /// `JSONEncoder` does), or a new member.
        func nestedArray(forKey key: String) -> ArrayBuilder {
            if let position = lastPosition(of: key) {
                switch members[position].slot {
                case .array(let existing): return existing
                case .value(.array(let values)):
                    let reopened = ArrayBuilder()
                    reopened.items = values.map { .value($0) }
                    members[position].slot = .array(reopened)
                    return reopened
                case .encoder(let encoder):
                    if let existing = encoder.openArray() { return existing }
                default: break
                }
            }
            let nested = ArrayBuilder()
            members.append(Field(key: key, slot: .array(nested)))
            return nested
        }

        private func reopen(_ object: JSON.Object, at position: Int) -> ObjectBuilder {
            let reopened = ObjectBuilder()
            reopened.members = object.entries.map { Field(key: $0.key, slot: .value($0.value)) }
            members[position].slot = .object(reopened)
            return reopened
        }
    }

    /// An array being filled.
    final class ArrayBuilder {
        var items: [Slot] = []
    }

    private var slot: Slot?
    private(set) var path: CodingPathNode
    let convertsSnakeCase: Bool
    let dates: JSONCoding.DateCoding
    /// Whether a keyed `encodeIfPresent(nil)` writes `null` (``JSONCoding/NilEncoding/null``) or nothing.
    let writesNil: Bool
    /// Whether a `Decimal` is written as a string of its digits (``JSONCoding/writesDecimalsAsStrings``).
    let writesDecimalsAsStrings: Bool
    private let keyCache: KeyCache
    /// How many values deep this encoder sits in the document.
    private let depth: Int

    /// Converted keys shared by every encoder of one document.
    final class KeyCache {
        var converted: [JSONByteKey: String] = [:]
        /// The keys converted so far in the order they were first asked for, and where the next is expected: the
        /// models of an array encode the same keys in the same order, so a key is usually found with one comparison
        /// instead of hashing it.
        var ordered: [(name: String, converted: String)] = []
        var next = 0
        /// The most keys kept in ``ordered``.
        static let orderedLimit = 64
    }

    private init(
        path: CodingPathNode, convertsSnakeCase: Bool, dates: JSONCoding.DateCoding, writesNil: Bool,
        writesDecimalsAsStrings: Bool, keyCache: KeyCache, depth: Int
    ) {
        self.path = path
        self.convertsSnakeCase = convertsSnakeCase
        self.dates = dates
        self.writesNil = writesNil
        self.writesDecimalsAsStrings = writesDecimalsAsStrings
        self.keyCache = keyCache
        self.depth = depth
    }

    static func encodeRoot<T: Encodable>(_ value: T, coding: JSONCoding) throws -> JSON {
        let encoder = JSONTreeEncoder(
            path: .root, convertsSnakeCase: coding.convertsSnakeCase, dates: coding.dates,
            writesNil: coding.nilEncoding == .null, writesDecimalsAsStrings: coding.writesDecimalsAsStrings,
            keyCache: KeyCache(), depth: 0)
        return try encoder.box(value, at: .root)
    }

    func child(at path: CodingPathNode) -> JSONTreeEncoder {
        JSONTreeEncoder(
            path: path, convertsSnakeCase: convertsSnakeCase, dates: dates, writesNil: writesNil,
            writesDecimalsAsStrings: writesDecimalsAsStrings, keyCache: keyCache, depth: depth + 1)
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// What was encoded; `{}` when nothing was, as `JSONEncoder` does.
    var result: JSON { slot?.resolved ?? .object(JSON.Object()) }

    /// Stores a finished value (used by ``JSON``'s own `encode(to:)`).
    func storeValue(_ value: JSON) { slot = .value(value) }

    /// The snake_case form of a key, cached for the document.
    func convert(_ key: String) -> String {
        guard convertsSnakeCase else { return key }
        let cache = keyCache
        let length = key.utf8.count
        if cache.next < cache.ordered.count, JSON.Object.sameKey(cache.ordered[cache.next].name, key, length: length) {
            cache.next += 1
            return cache.ordered[cache.next - 1].converted
        }
        for position in cache.ordered.indices
        where JSON.Object.sameKey(cache.ordered[position].name, key, length: length) {
            cache.next = position + 1
            return cache.ordered[position].converted
        }
        let converted: String
        if let known = cache.converted[JSONByteKey(key)] {
            converted = known
        } else {
            converted = JSONKeyConversion.snakeCase(fromCamelCase: key)
            cache.converted[JSONByteKey(key)] = converted
        }
        if cache.ordered.count < KeyCache.orderedLimit {
            cache.ordered.append((key, converted))
            cache.next = cache.ordered.count
        }
        return converted
    }

    // MARK: - Containers

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let builder: ObjectBuilder
        if case .object(let existing)? = slot {
            builder = existing
        } else {
            builder = ObjectBuilder()
            slot = .object(builder)
        }
        return KeyedEncodingContainer(JSONTreeKeyedEncodingContainer<Key>(encoder: self, builder: builder, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let builder: ArrayBuilder
        if case .array(let existing)? = slot {
            builder = existing
        } else {
            builder = ArrayBuilder()
            slot = .array(builder)
        }
        return JSONTreeUnkeyedEncodingContainer(encoder: self, builder: builder, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    /// The object this (super) encoder is filling, for a nested container at the same key to add to.
    func openObject() -> ObjectBuilder? {
        switch slot {
        case .object(let builder)?: return builder
        case .value(.object(let object))?:
            let builder = ObjectBuilder()
            builder.members = object.entries.map { ObjectBuilder.Field(key: $0.key, slot: .value($0.value)) }
            slot = .object(builder)
            return builder
        default: return nil
        }
    }

    /// The array this (super) encoder is filling, for a nested container at the same key to append to.
    func openArray() -> ArrayBuilder? {
        switch slot {
        case .array(let builder)?: return builder
        case .value(.array(let values))?:
            let builder = ArrayBuilder()
            builder.items = values.map { .value($0) }
            slot = .array(builder)
            return builder
        default: return nil
        }
    }

    // MARK: - Single value

    func encodeNil() throws { slot = .value(.null) }
    func encode(_ value: Bool) throws { slot = .value(.bool(value)) }
    func encode(_ value: String) throws { slot = .value(.string(value)) }
    func encode(_ value: Double) throws { slot = .value(try boxDouble(value, at: path)) }
    func encode(_ value: Float) throws { slot = .value(try boxFloat(value, at: path)) }
    func encode(_ value: Int) throws { slot = .value(boxInteger(value)) }
    func encode(_ value: Int8) throws { slot = .value(boxInteger(value)) }
    func encode(_ value: Int16) throws { slot = .value(boxInteger(value)) }
    func encode(_ value: Int32) throws { slot = .value(boxInteger(value)) }
    func encode(_ value: Int64) throws { slot = .value(boxInteger(value)) }
    func encode(_ value: UInt) throws { slot = .value(boxInteger(value)) }
    func encode(_ value: UInt8) throws { slot = .value(boxInteger(value)) }
    func encode(_ value: UInt16) throws { slot = .value(boxInteger(value)) }
    func encode(_ value: UInt32) throws { slot = .value(boxInteger(value)) }
    func encode(_ value: UInt64) throws { slot = .value(boxInteger(value)) }
    func encode<T: Encodable>(_ value: T) throws { slot = .value(try box(value, at: path)) }

    // MARK: - Boxing

    /// Encodes any `Encodable` into a finished value.
    func box<T: Encodable>(_ value: T, at path: @autoclosure () -> CodingPathNode) throws -> JSON {
        if T.self == JSON.self, let json = value as? JSON { return json }
        if T.self == Date.self, let date = value as? Date { return try boxDate(date, at: path()) }
        if T.self == URL.self, let url = value as? URL { return .string(url.absoluteString) }
        if T.self == Data.self, let data = value as? Data { return .string(data.base64EncodedString()) }
        if T.self == Decimal.self, let decimal = value as? Decimal { return try boxDecimal(decimal, at: path()) }
        if T.self is any JSONStringKeyedDictionaryEncodable.Type,
            let dictionary = value as? any JSONStringKeyedDictionaryEncodable
        {
            return try dictionary.encodeWithoutKeyConversion(encoder: self, path: path())
        }
        let encoder = child(at: path())
        if encoder.depth > StackLimit.checkedDepth { try encoder.checkStack(value) }
        try value.encode(to: encoder)
        return encoder.result
    }

    /// Refuses to go deeper when the thread's stack is nearly used up (see ``StackLimit``).
    @inline(never)
    private func checkStack(_ value: Any) throws {
        guard StackLimit.isNearlyExhausted() else { return }
        throw EncodingError.invalidValue(
            value,
            .init(
                codingPath: path.keys,
                debugDescription:
                    "The value nests \(depth) levels deep, more than this thread's stack holds; encode it on a thread with a larger stack."
            ))
    }

    func boxInteger<I: BinaryInteger>(_ value: I) -> JSON {
        // Above `Int64.max` (a `UInt64`): the exact digits, not the nearest double.
        .number(JSON.Number(exactly: value))
    }

    func boxDouble(_ value: Double, at path: @autoclosure () -> CodingPathNode) throws -> JSON {
        try Self.boxDouble(value, at: path())
    }

    func boxFloat(_ value: Float, at path: @autoclosure () -> CodingPathNode) throws -> JSON {
        try Self.boxFloat(value, at: path())
    }

    static func boxDouble(_ value: Double, at path: @autoclosure () -> CodingPathNode) throws -> JSON {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                .init(codingPath: path().keys, debugDescription: "Unable to encode Double.\(value) directly in JSON."))
        }
        return .number(.double(value))
    }

    static func boxFloat(_ value: Float, at path: @autoclosure () -> CodingPathNode) throws -> JSON {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                .init(codingPath: path().keys, debugDescription: "Unable to encode Float.\(value) directly in JSON."))
        }
        return .number(.double(widened(value)))
    }

    /// The double a Float is written as: through the Float's shortest text, so 0.1 stays 0.1 (as JSONEncoder
    /// writes it).
    static func widened(_ value: Float) -> Double { Double(value.description) ?? Double(value) }

    private func boxDate(_ date: Date, at path: CodingPathNode) throws -> JSON {
        try Self.boxDate(date, dates: dates, at: path)
    }

    private func boxDecimal(_ decimal: Decimal, at path: CodingPathNode) throws -> JSON {
        try Self.boxDecimal(decimal, asString: writesDecimalsAsStrings, at: path)
    }

    /// A date as `dates` writes it (shared with ``JSONByteEncoder``).
    static func boxDate(_ date: Date, dates: JSONCoding.DateCoding, at path: CodingPathNode) throws -> JSON {
        switch dates {
        case .iso8601, .iso8601WholeSeconds:
            let text =
                dates == .iso8601
                ? ISO8601Timestamp.string(from: date) : ISO8601Timestamp.string(wholeSecondsOf: date)
            guard let text else {
                // The seconds, not the date: describing an infinite `Date` traps inside Foundation.
                throw EncodingError.invalidValue(
                    date.timeIntervalSince1970,
                    .init(codingPath: path.keys, debugDescription: ISO8601Timestamp.unrepresentable(date)))
            }
            return .string(text)
        case .secondsSince1970: return try boxDouble(date.timeIntervalSince1970, at: path)
        case .millisecondsSince1970: return try boxDouble(date.timeIntervalSince1970 * 1000, at: path)
        case .deferredToDate: return try boxDouble(date.timeIntervalSinceReferenceDate, at: path)
        }
    }

    /// Every digit of the decimal, as `JSONEncoder` writes it (but a NaN decimal is refused, not written as `NaN`);
    /// the same digits as a string when `asString` (``writesDecimalsAsStrings``).
    static func boxDecimal(_ decimal: Decimal, asString: Bool, at path: CodingPathNode) throws -> JSON {
        let text = decimal.description
        guard decimal.isFinite, let number = JSON.Number(validText: text) else {
            throw EncodingError.invalidValue(
                decimal,
                .init(codingPath: path.keys, debugDescription: "Unable to encode Decimal.nan directly in JSON."))
        }
        return asString ? .string(text) : .number(number)
    }
}

/// `[String: Value]` dictionaries are encoded without key conversion, as `JSONEncoder` does.
protocol JSONStringKeyedDictionaryEncodable {
    func encodeWithoutKeyConversion(encoder: JSONTreeEncoder, path: CodingPathNode) throws -> JSON
}

extension Dictionary: JSONStringKeyedDictionaryEncodable where Key == String, Value: Encodable {
    func encodeWithoutKeyConversion(encoder: JSONTreeEncoder, path: CodingPathNode) throws -> JSON {
        var members: [JSON.Object.Entry] = []
        members.reserveCapacity(count)
        for (key, value) in sorted(by: { $0.key < $1.key }) {
            let boxed = try encoder.box(value, at: path.appending(JSONCodingKey(stringValue: key)))
            members.append(JSON.Object.Entry(key: key, value: boxed))
        }
        return .object(JSON.Object(uniqueEntries: members))
    }
}
