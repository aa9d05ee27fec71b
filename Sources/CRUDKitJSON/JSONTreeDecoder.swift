import Foundation

/// A `Decoder` that reads models straight from a parsed ``JSON`` tree: no second pass over bytes.
///
/// It follows `JSONDecoder`'s rules (the same key conversion, the same special cases for `Date`, `Data`, `URL`,
/// `Decimal` and string-keyed dictionaries, the same `DecodingError` cases and coding paths), so
/// ``JSONCoding`` can use either engine with the same results. One decoder serves a whole document: nested
/// values swap ``value`` and the path in and out instead of allocating a decoder each.
final class JSONTreeDecoder: Decoder, SingleValueDecodingContainer {
    /// The value being decoded now.
    private(set) var value: JSON
    /// Where ``value`` sits in the document.
    private(set) var path: CodingPathNode
    let convertsSnakeCase: Bool
    let dates: JSONCoding.DateCoding
    private var convertedKeys: [JSONByteKey: String] = [:]
    private var writtenKeys: [JSONByteKey: String] = [:]
    /// How many models deep ``unbox(_:as:at:)`` is now.
    private var depth = 0
    /// How many keys the keyed containers compared while looking keys up: a check that lookups stay linear in
    /// the number of members (tests read it; nothing else does).
    var keyComparisons = 0

    static let invalidDateDescription = "Expected date string to be ISO8601-formatted."

    init(value: JSON, coding: JSONCoding, path: CodingPathNode = .root) {
        self.value = value
        self.path = path
        convertsSnakeCase = coding.convertsSnakeCase
        dates = coding.dates
    }

    private init(value: JSON, path: CodingPathNode, parent: JSONTreeDecoder) {
        self.value = value
        self.path = path
        convertsSnakeCase = parent.convertsSnakeCase
        dates = parent.dates
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func decodeRoot<T: Decodable>(_ type: T.Type) throws -> T {
        try unbox(value, as: T.self, at: path)
    }

    /// A separate decoder for `superDecoder()`.
    func child(value: JSON, path: CodingPathNode) -> JSONTreeDecoder {
        JSONTreeDecoder(value: value, path: path, parent: self)
    }

    /// The snake_case form the encoder writes for a property name (`imageURL` → `image_url`), cached for the
    /// document.
    func written(_ name: String) -> String {
        if let known = writtenKeys[JSONByteKey(name)] { return known }
        let written = JSONKeyConversion.snakeCase(fromCamelCase: name)
        writtenKeys[JSONByteKey(name)] = written
        return written
    }

    /// The key shapes of the objects decoded last (at most ``keptShapes``), replaced in turn.
    private var shapes: [JSONTreeKeyShape] = []
    private var nextShape = 0
    private static let keptShapes = 8

    /// How the keys of an object with these members convert: `nil` when no key changes. Objects with the same keys in
    /// the same order share one shape, so each key of an array of models is converted once, not once per element.
    func keyShape(of members: [JSON.Object.Entry]) -> JSONTreeKeyShape? {
        for shape in shapes where shape.keys.count == members.count {
            var same = true
            for position in members.indices where !JSONByteKey.sameBytes(members[position].key, shape.keys[position]) {
                same = false
                break
            }
            if same { return shape.convertsAny ? shape : nil }
        }
        let keys = members.map(\.key)
        let convertsAny = keys.contains { $0.utf8.contains(UInt8(ascii: "_")) }
        let shape = JSONTreeKeyShape(
            keys: keys, converted: convertsAny ? keys.map(convert) : keys, convertsAny: convertsAny)
        if shapes.count < Self.keptShapes {
            shapes.append(shape)
        } else {
            shapes[nextShape] = shape
            nextShape = (nextShape + 1) % Self.keptShapes
        }
        return convertsAny ? shape : nil
    }

    /// The camelCase form of a snake_case key, cached for the document.
    func convert(_ key: String) -> String {
        if let known = convertedKeys[JSONByteKey(key)] { return known }
        let converted = JSONKeyConversion.camelCase(fromSnakeCase: key)
        convertedKeys[JSONByteKey(key)] = converted
        return converted
    }

    // MARK: - Containers

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw Self.mismatch([String: Any].self, value, at: path)
        }
        return KeyedDecodingContainer(JSONTreeKeyedContainer<Key>(decoder: self, object: object, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let values) = value else { throw Self.mismatch([Any].self, value, at: path) }
        return JSONTreeUnkeyedContainer(decoder: self, values: values, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: - Single value

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try unboxBool(value, at: path) }
    func decode(_ type: String.Type) throws -> String { try unboxString(value, at: path) }
    func decode(_ type: Double.Type) throws -> Double { try unboxDouble(value, at: path) }
    func decode(_ type: Float.Type) throws -> Float { try unboxFloat(value, at: path) }
    func decode(_ type: Int.Type) throws -> Int { try unboxInteger(value, as: Int.self, at: path) }
    func decode(_ type: Int8.Type) throws -> Int8 { try unboxInteger(value, as: Int8.self, at: path) }
    func decode(_ type: Int16.Type) throws -> Int16 { try unboxInteger(value, as: Int16.self, at: path) }
    func decode(_ type: Int32.Type) throws -> Int32 { try unboxInteger(value, as: Int32.self, at: path) }
    func decode(_ type: Int64.Type) throws -> Int64 { try unboxInteger(value, as: Int64.self, at: path) }
    func decode(_ type: UInt.Type) throws -> UInt { try unboxInteger(value, as: UInt.self, at: path) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try unboxInteger(value, as: UInt8.self, at: path) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try unboxInteger(value, as: UInt16.self, at: path) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try unboxInteger(value, as: UInt32.self, at: path) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try unboxInteger(value, as: UInt64.self, at: path) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unbox(value, as: T.self, at: path) }

    // MARK: - Unboxing

    /// Decodes any `Decodable` from `value`, which sits at `path`.
    func unbox<T: Decodable>(_ value: JSON, as type: T.Type, at path: @autoclosure () -> CodingPathNode) throws -> T {
        if T.self == JSON.self, let value = value as? T { return value }
        // The commonest leaves without a trip through `T(from:)` (a dictionary or array of them, say). `T` is
        // exactly the type compared, so the bit casts are no-ops.
        if T.self == String.self, case .string(let text) = value { return unsafeBitCast(text, to: T.self) }
        if T.self == Int.self, case .number(let number) = value, let exact = number.exactly(Int.self) {
            return unsafeBitCast(exact, to: T.self)
        }
        // The special cases live in their own frame, so the frame that recurses into nested models stays small.
        if let special = try unboxSpecial(value, as: T.self, at: path) { return special }
        depth += 1
        defer { depth -= 1 }
        if depth > StackLimit.checkedDepth { try checkStack(at: path()) }
        let (savedValue, savedPath) = (self.value, self.path)
        self.value = value
        self.path = path()
        defer { (self.value, self.path) = (savedValue, savedPath) }
        return try T(from: self)
    }

    /// Refuses to go deeper when the thread's stack is nearly used up (see ``StackLimit``).
    @inline(never)
    private func checkStack(at path: CodingPathNode) throws {
        guard StackLimit.isNearlyExhausted() else { return }
        throw Self.corrupted(
            "The document nests models \(depth) deep, more than this thread's stack holds; decode it on a thread with a larger stack.",
            at: path)
    }

    /// `Date`, `URL`, `Data`, `Decimal`, arrays and string-keyed dictionaries, decoded their own way; `nil` for any
    /// other type.
    @inline(never)
    private func unboxSpecial<T: Decodable>(
        _ value: JSON,
        as type: T.Type,
        at path: () -> CodingPathNode
    ) throws -> T? {
        if T.self == Date.self { return unsafeBitCast(try unboxDate(value, at: path()), to: T.self) }
        if T.self == URL.self { return unsafeBitCast(try unboxURL(value, at: path()), to: T.self) }
        if T.self == Data.self { return unsafeBitCast(try unboxData(value, at: path()), to: T.self) }
        if T.self == Decimal.self { return unsafeBitCast(try unboxDecimal(value, at: path()), to: T.self) }
        guard let direct = directlyDecodable(T.self) else { return nil }
        depth += 1
        defer { depth -= 1 }
        if depth > StackLimit.checkedDepth { try checkStack(at: path()) }
        func decode<Direct: JSONTreeDirectlyDecodable>(_ type: Direct.Type) throws -> T {
            // `Direct` is `T` (it was cast from `T.self`), so the bit cast is a no-op.
            unsafeBitCast(try Direct.decodeDirectly(value, decoder: self, path: path()), to: T.self)
        }
        return try decode(direct)
    }

    /// The types `unboxSpecial` asked about last, and whether each is decoded directly: a cast to a protocol looks
    /// the conformance up each time, which for every nested model cost more than decoding a field.
    private var directTypes: [(type: ObjectIdentifier, direct: (any JSONTreeDirectlyDecodable.Type)?)] = []

    private func directlyDecodable<T>(_ type: T.Type) -> (any JSONTreeDirectlyDecodable.Type)? {
        let identifier = ObjectIdentifier(type)
        for known in directTypes where known.type == identifier { return known.direct }
        let direct = type as? any JSONTreeDirectlyDecodable.Type
        if directTypes.count < 32 { directTypes.append((identifier, direct)) }
        return direct
    }

    func unboxBool(_ value: JSON, at path: @autoclosure () -> CodingPathNode) throws -> Bool {
        if case .bool(let flag) = value { return flag }
        throw Self.mismatch(Bool.self, value, at: path())
    }

    func unboxString(_ value: JSON, at path: @autoclosure () -> CodingPathNode) throws -> String {
        if case .string(let text) = value { return text }
        throw Self.mismatch(String.self, value, at: path())
    }

    func unboxDouble(_ value: JSON, at path: @autoclosure () -> CodingPathNode) throws -> Double {
        guard case .number(let number) = value else { throw Self.mismatch(Double.self, value, at: path()) }
        let double = number.doubleValue
        // A number too small for a double (`1e-400`) is refused, as `JSONDecoder` does, rather than read as zero.
        if double == 0, case .literal(let literal) = number, !literal.digits.isZero {
            throw Self.corrupted("Parsed JSON number <\(literal)> does not fit in Double.", at: path())
        }
        return double
    }

    func unboxFloat(_ value: JSON, at path: @autoclosure () -> CodingPathNode) throws -> Float {
        let double = try unboxDouble(value, at: path())
        let float = Float(double)
        // Too large (it rounds to infinity: `3.4028235e+38`, `Float.greatestFiniteMagnitude` as Swift writes it, is
        // not), or so small that it would be read as zero (`1e-50`): refused, as `JSONDecoder` does.
        guard float.isFinite, float != 0 || double == 0 else {
            throw Self.corrupted("Parsed JSON number <\(double)> does not fit in Float.", at: path())
        }
        return float
    }

    func unboxInteger<I: FixedWidthInteger>(
        _ value: JSON,
        as type: I.Type,
        at path: @autoclosure () -> CodingPathNode
    ) throws -> I {
        guard case .number(let number) = value else { throw Self.mismatch(I.self, value, at: path()) }
        // Exact or refused: `9007199254740993.5` is no integer (JSONDecoder truncates it to `…993`).
        if let exact = number.exactly(I.self) { return exact }
        throw Self.corrupted("Parsed JSON number <\(value)> does not fit in \(I.self).", at: path())
    }

    private func unboxDate(_ value: JSON, at path: @autoclosure () -> CodingPathNode) throws -> Date {
        switch dates {
        case .iso8601, .iso8601WholeSeconds:
            let text = try unboxString(value, at: path())
            guard let date = ISO8601Timestamp.date(from: text) else {
                throw Self.corrupted(Self.invalidDateDescription, at: path())
            }
            return date
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try unboxDouble(value, at: path()))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try unboxDouble(value, at: path()) / 1000)
        case .deferredToDate:
            return Date(timeIntervalSinceReferenceDate: try unboxDouble(value, at: path()))
        }
    }

    private func unboxURL(_ value: JSON, at path: @autoclosure () -> CodingPathNode) throws -> URL {
        guard let url = URL(string: try unboxString(value, at: path())) else {
            throw Self.corrupted("Invalid URL string.", at: path())
        }
        return url
    }

    private func unboxData(_ value: JSON, at path: @autoclosure () -> CodingPathNode) throws -> Data {
        guard let data = Data(base64Encoded: try unboxString(value, at: path())) else {
            throw Self.corrupted("Encountered Data is not valid Base64.", at: path())
        }
        return data
    }

    private func unboxDecimal(_ value: JSON, at path: @autoclosure () -> CodingPathNode) throws -> Decimal {
        // A string that is exactly a JSON number is an amount too (Django REST framework and Rails send `"12.50"`).
        let number: JSON.Number
        switch value {
        case .number(let value): number = value
        case .string(let text):
            guard let value = JSON.Number(decimalText: text) else {
                throw Self.mismatch(Decimal.self, value, at: path())
            }
            number = value
        default: throw Self.mismatch(Decimal.self, value, at: path())
        }
        // From the number's text, as JSONDecoder does: a literal such as `1234567890.123456789` keeps every digit.
        guard let decimal = number.decimalValue else {
            throw Self.corrupted("Parsed JSON number <\(number)> does not fit in Decimal.", at: path())
        }
        return decimal
    }

    // MARK: - Errors

    static func mismatch(_ type: Any.Type, _ value: JSON, at path: CodingPathNode) -> DecodingError {
        if value.isNull {
            return DecodingError.valueNotFound(
                type,
                .init(
                    codingPath: path.keys,
                    debugDescription: "Cannot get value of type \(type) -- found null value instead")
            )
        }
        let found: String
        switch value {
        case .null: found = "null"
        case .bool: found = "bool"
        case .number: found = "number"
        case .string: found = "a string"
        case .array: found = "an array"
        case .object: found = "a dictionary"
        }
        return DecodingError.typeMismatch(
            type,
            .init(codingPath: path.keys, debugDescription: "Expected to decode \(type) but found \(found) instead.")
        )
    }

    static func corrupted(_ description: String, at path: CodingPathNode) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: path.keys, debugDescription: description))
    }
}

/// Types the tree decoder reads without their `init(from:)`.
protocol JSONTreeDirectlyDecodable {
    static func decodeDirectly(_ value: JSON, decoder: JSONTreeDecoder, path: CodingPathNode) throws -> Self
}

/// Arrays are read element by element without an unkeyed container: the same values, paths and errors as
/// `Array.init(from:)` through ``JSONTreeUnkeyedContainer``.
extension Array: JSONTreeDirectlyDecodable where Element: Decodable {
    static func decodeDirectly(_ value: JSON, decoder: JSONTreeDecoder, path: CodingPathNode) throws -> Self {
        guard case .array(let values) = value else { throw JSONTreeDecoder.mismatch([Any].self, value, at: path) }
        var result: [Element] = []
        result.reserveCapacity(values.count)
        for position in values.indices {
            result.append(try decoder.unbox(values[position], as: Element.self, at: path.appending(index: position)))
        }
        return result
    }
}

/// `[String: Value]` dictionaries are decoded without key conversion, as `JSONDecoder` does.
extension Dictionary: JSONTreeDirectlyDecodable where Key == String, Value: Decodable {
    static func decodeDirectly(_ value: JSON, decoder: JSONTreeDecoder, path: CodingPathNode) throws -> Self {
        guard case .object(let object) = value else { throw JSONTreeDecoder.mismatch(Self.self, value, at: path) }
        var result: [String: Value] = [:]
        result.reserveCapacity(object.count)
        for (key, member) in object {
            result[key] = try decoder.unbox(member, as: Value.self, at: path.appending(JSONCodingKey(stringValue: key)))
        }
        return result
    }
}
