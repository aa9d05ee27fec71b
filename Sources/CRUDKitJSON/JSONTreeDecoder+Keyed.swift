import Foundation

/// The keyed container of ``JSONTreeDecoder``: looks keys up in a parsed object (through their camelCase forms
/// when snake_case conversion is on).
///
/// Everything it reads sits in one ``JSONTreeKeyedState``: `KeyedDecodingContainer` copies the container on every
/// call, and one reference costs one retain where six fields cost six.
struct JSONTreeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    private let state: JSONTreeKeyedState

    init(decoder: JSONTreeDecoder, object: JSON.Object, path: CodingPathNode) {
        state = JSONTreeKeyedState(decoder: decoder, object: object, path: path)
    }

    private var decoder: JSONTreeDecoder { state.decoder }
    private var object: JSON.Object { state.object }
    private var path: CodingPathNode { state.path }

    var codingPath: [any CodingKey] { path.keys }

    /// The keys the container holds, each once (two members whose keys convert to one, `user_id` and `userId`,
    /// give one key, as `JSONDecoder` does). Under snake_case conversion a member whose converted key is not a `Key`
    /// is listed by its key as written (`user_name` for a property named so), the key ``contains(_:)`` finds it by.
    var allKeys: [Key] {
        guard let shape = state.shape else { return state.members.compactMap { Key(stringValue: $0.key) } }
        var listed: Set<JSONByteKey> = []
        var keys: [Key] = []
        for (position, converted) in shape.converted.enumerated() {
            let written = shape.keys[position]
            guard let key = Key(stringValue: converted) ?? Key(stringValue: written),
                listed.insert(JSONByteKey(key.stringValue)).inserted, contains(key)
            else { continue }
            keys.append(key)
        }
        return keys
    }

    private func lookup(_ key: Key) -> JSON? { state.lookup(key.stringValue) }

    private func require(_ key: Key) throws -> JSON {
        guard let value = lookup(key) else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: path.keys,
                    debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\").")
            )
        }
        return value
    }

    func contains(_ key: Key) -> Bool { lookup(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { try require(key).isNull }

    // MARK: - Required values

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.unboxBool(require(key), at: path.appending(key))
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.unboxString(require(key), at: path.appending(key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.unboxDouble(require(key), at: path.appending(key))
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.unboxFloat(require(key), at: path.appending(key))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unbox(require(key), as: T.self, at: path.appending(key))
    }

    private func integer<I: FixedWidthInteger>(_ key: Key) throws -> I {
        try decoder.unboxInteger(require(key), as: I.self, at: path.appending(key))
    }

    // MARK: - Optional values (one lookup instead of the default three)

    private func present(_ key: Key) -> JSON? {
        guard let value = lookup(key), !value.isNull else { return nil }
        return value
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(key).map { try decoder.unboxBool($0, at: path.appending(key)) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(key).map { try decoder.unboxString($0, at: path.appending(key)) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(key).map { try decoder.unboxDouble($0, at: path.appending(key)) }
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try present(key).map { try decoder.unboxFloat($0, at: path.appending(key)) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optionalInteger(key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optionalInteger(key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optionalInteger(key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optionalInteger(key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optionalInteger(key) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key).map { try decoder.unbox($0, as: T.self, at: path.appending(key)) }
    }

    private func optionalInteger<I: FixedWidthInteger>(_ key: Key) throws -> I? {
        try present(key).map { try decoder.unboxInteger($0, as: I.self, at: path.appending(key)) }
    }

    // MARK: - Nesting

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try require(key)
        guard case .object(let nested) = value else {
            throw JSONTreeDecoder.mismatch([String: Any].self, value, at: path.appending(key))
        }
        return KeyedDecodingContainer(
            JSONTreeKeyedContainer<NestedKey>(decoder: decoder, object: nested, path: path.appending(key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let value = try require(key)
        guard case .array(let values) = value else {
            throw JSONTreeDecoder.mismatch([Any].self, value, at: path.appending(key))
        }
        return JSONTreeUnkeyedContainer(decoder: decoder, values: values, path: path.appending(key))
    }

    func superDecoder() throws -> any Decoder {
        decoder.child(value: object["super"] ?? .null, path: path.appending(JSONCodingKey.super))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(value: lookup(key) ?? .null, path: path.appending(key))
    }
}

/// The unkeyed container of ``JSONTreeDecoder``: walks a parsed array.
struct JSONTreeUnkeyedContainer: UnkeyedDecodingContainer {
    private let decoder: JSONTreeDecoder
    private let values: [JSON]
    private let path: CodingPathNode
    private(set) var currentIndex = 0

    init(decoder: JSONTreeDecoder, values: [JSON], path: CodingPathNode) {
        self.decoder = decoder
        self.values = values
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }
    var count: Int? { values.count }
    var isAtEnd: Bool { currentIndex >= values.count }

    private func next(_ type: Any.Type) throws -> JSON {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                .init(
                    codingPath: path.appending(index: currentIndex).keys,
                    debugDescription: "Unkeyed container is at end.")
            )
        }
        return values[currentIndex]
    }

    private var here: CodingPathNode { path.appending(index: currentIndex) }

    mutating func decodeNil() throws -> Bool {
        guard try next(Never.self).isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let value = try decoder.unboxBool(next(type), at: here)
        currentIndex += 1
        return value
    }
    mutating func decode(_ type: String.Type) throws -> String {
        let value = try decoder.unboxString(next(type), at: here)
        currentIndex += 1
        return value
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        let value = try decoder.unboxDouble(next(type), at: here)
        currentIndex += 1
        return value
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        let value = try decoder.unboxFloat(next(type), at: here)
        currentIndex += 1
        return value
    }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer() }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try decoder.unbox(next(type), as: T.self, at: here)
        currentIndex += 1
        return value
    }

    private mutating func integer<I: FixedWidthInteger>() throws -> I {
        let value = try decoder.unboxInteger(next(I.self), as: I.self, at: here)
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try next([String: Any].self)
        guard case .object(let object) = value else {
            throw JSONTreeDecoder.mismatch([String: Any].self, value, at: here)
        }
        let container = JSONTreeKeyedContainer<NestedKey>(decoder: decoder, object: object, path: here)
        currentIndex += 1
        return KeyedDecodingContainer(container)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let value = try next([Any].self)
        guard case .array(let nested) = value else { throw JSONTreeDecoder.mismatch([Any].self, value, at: here) }
        let container = JSONTreeUnkeyedContainer(decoder: decoder, values: nested, path: here)
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let value = try next(Any.self)
        let decoder = decoder.child(value: value, path: here)
        currentIndex += 1
        return decoder
    }
}

/// The state of a ``JSONTreeKeyedContainer``: the object, its path, and how its keys are found.
final class JSONTreeKeyedState {
    let decoder: JSONTreeDecoder
    let object: JSON.Object
    let members: [JSON.Object.Entry]
    let path: CodingPathNode
    /// The converted keys of the members, when snake_case conversion changed any (shared by every object with the
    /// same keys).
    let shape: JSONTreeKeyShape?
    /// Where the next key is likely to be: models decode their keys in the order servers write them.
    private var hint = 0

    init(decoder: JSONTreeDecoder, object: JSON.Object, path: CodingPathNode) {
        self.decoder = decoder
        self.object = object
        self.path = path
        members = object.entries
        shape = decoder.convertsSnakeCase ? decoder.keyShape(of: members) : nil
    }

    /// The value of the member whose (converted) key is `name`.
    func lookup(_ name: String) -> JSON? {
        if let shape {
            let converted = shape.converted
            if let positions = shape.positions {
                decoder.keyComparisons += 1
                if let position = positions[JSONByteKey(name)] { return members[position].value }
            } else {
                // The first member with the key, as the positions table keeps. Without repeated converted keys
                // the member after the last one found is tried first.
                let length = name.utf8.count
                var found: Int?
                if !shape.repeatsKeys, hint < converted.count,
                    JSON.Object.sameKey(converted[hint], name, length: length)
                {
                    found = hint
                    decoder.keyComparisons += 1
                } else {
                    for position in converted.indices
                    where JSON.Object.sameKey(converted[position], name, length: length) {
                        found = position
                        break
                    }
                    decoder.keyComparisons += (found ?? converted.count - 1) + 1
                }
                if let found {
                    hint = found + 1
                    return members[found].value
                }
            }
        } else {
            if let value = object[name] { return value }
        }
        guard decoder.convertsSnakeCase else { return nil }
        // The key the encoder writes for this property. `image_url` converts to `imageUrl`, which is not
        // `imageURL`: `JSONDecoder` leaves such a property out (nil for an optional, so a read-modify-write PUT
        // clears the server's value). Matching what the encoder writes reads back every key it writes — also for a
        // property named in snake_case (`user_name`), which the encoder writes unchanged and conversion turns into
        // `userName`.
        let written = decoder.written(name)
        // Without conversion the key was looked up as it is already.
        if shape == nil, JSONByteKey.sameBytes(written, name) { return nil }
        return object[written]
    }
}

/// The camelCase forms of an object's keys, made once for every object of a document with the same keys in the same
/// order (every element of an array of models).
final class JSONTreeKeyShape {
    /// The keys as they are in the document.
    let keys: [String]
    /// Their converted forms, position by position.
    let converted: [String]
    /// The position of the first member with each converted key, for objects above the linear search limit (a
    /// linear search per key made decoding quadratic in the number of members).
    let positions: [JSONByteKey: Int]?
    /// Whether two members convert to the same key.
    let repeatsKeys: Bool
    /// Whether conversion changed any key (otherwise keys are looked up in the object as they are).
    let convertsAny: Bool

    /// The most members searched in order rather than through ``positions`` (at most 16 × 16 string
    /// comparisons per object, so decoding stays linear in the document).
    static let linearSearchLimit = 16

    init(keys: [String], converted: [String], convertsAny: Bool) {
        self.keys = keys
        self.converted = converted
        self.convertsAny = convertsAny
        if !convertsAny {
            positions = nil
            repeatsKeys = false
        } else if converted.count > Self.linearSearchLimit {
            var positions: [JSONByteKey: Int] = [:]
            positions.reserveCapacity(converted.count)
            for (position, key) in converted.enumerated() where positions[JSONByteKey(key)] == nil {
                positions[JSONByteKey(key)] = position
            }
            self.positions = positions
            repeatsKeys = positions.count < converted.count
        } else {
            positions = nil
            repeatsKeys = Set(converted.map(JSONByteKey.init)).count < converted.count
        }
    }
}
