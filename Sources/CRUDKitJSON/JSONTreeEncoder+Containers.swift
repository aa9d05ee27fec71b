import Foundation

/// The keyed container of ``JSONTreeEncoder``: appends members to an object in the order they are encoded.
struct JSONTreeKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    private let encoder: JSONTreeEncoder
    private let builder: JSONTreeEncoder.ObjectBuilder
    private let path: CodingPathNode

    init(encoder: JSONTreeEncoder, builder: JSONTreeEncoder.ObjectBuilder, path: CodingPathNode) {
        self.encoder = encoder
        self.builder = builder
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }

    private func put(_ value: JSON, _ key: Key) {
        builder.members.append(.init(key: encoder.convert(key.stringValue), slot: .value(value)))
    }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        put(try encoder.boxDouble(value, at: path.appending(key)), key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        put(try encoder.boxFloat(value, at: path.appending(key)), key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(encoder.boxInteger(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(encoder.boxInteger(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(encoder.boxInteger(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(encoder.boxInteger(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(encoder.boxInteger(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(encoder.boxInteger(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(encoder.boxInteger(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(encoder.boxInteger(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(encoder.boxInteger(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(encoder.boxInteger(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        put(try encoder.box(value, at: path.appending(key)), key)
    }

    // MARK: - encodeIfPresent: `nil` writes `null` when the coding says so (a PUT), and nothing otherwise

    private mutating func encodeNilIfWritten(forKey key: Key) throws {
        if encoder.writesNil { try encodeNil(forKey: key) }
    }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNilIfWritten(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        // A second container for the key adds to the first, as `JSONEncoder` does (the JSON:API pattern of a
        // subclass adding to `attributes`).
        let nested = builder.nestedObject(forKey: encoder.convert(key.stringValue))
        return KeyedEncodingContainer(
            JSONTreeKeyedEncodingContainer<NestedKey>(encoder: encoder, builder: nested, path: path.appending(key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = builder.nestedArray(forKey: encoder.convert(key.stringValue))
        return JSONTreeUnkeyedEncodingContainer(encoder: encoder, builder: nested, path: path.appending(key))
    }

    mutating func superEncoder() -> any Encoder {
        let child = encoder.child(at: path.appending(JSONCodingKey.super))
        builder.members.append(.init(key: "super", slot: .encoder(child)))
        return child
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let child = encoder.child(at: path.appending(key))
        builder.members.append(.init(key: encoder.convert(key.stringValue), slot: .encoder(child)))
        return child
    }
}

/// The unkeyed container of ``JSONTreeEncoder``: appends elements to an array.
struct JSONTreeUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    private let encoder: JSONTreeEncoder
    private let builder: JSONTreeEncoder.ArrayBuilder
    private let path: CodingPathNode

    init(encoder: JSONTreeEncoder, builder: JSONTreeEncoder.ArrayBuilder, path: CodingPathNode) {
        self.encoder = encoder
        self.builder = builder
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }
    var count: Int { builder.items.count }
    private var here: CodingPathNode { path.appending(index: builder.items.count) }

    private func put(_ value: JSON) { builder.items.append(.value(value)) }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(try encoder.boxDouble(value, at: here)) }
    mutating func encode(_ value: Float) throws { put(try encoder.boxFloat(value, at: here)) }
    mutating func encode(_ value: Int) throws { put(encoder.boxInteger(value)) }
    mutating func encode(_ value: Int8) throws { put(encoder.boxInteger(value)) }
    mutating func encode(_ value: Int16) throws { put(encoder.boxInteger(value)) }
    mutating func encode(_ value: Int32) throws { put(encoder.boxInteger(value)) }
    mutating func encode(_ value: Int64) throws { put(encoder.boxInteger(value)) }
    mutating func encode(_ value: UInt) throws { put(encoder.boxInteger(value)) }
    mutating func encode(_ value: UInt8) throws { put(encoder.boxInteger(value)) }
    mutating func encode(_ value: UInt16) throws { put(encoder.boxInteger(value)) }
    mutating func encode(_ value: UInt32) throws { put(encoder.boxInteger(value)) }
    mutating func encode(_ value: UInt64) throws { put(encoder.boxInteger(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { put(try encoder.box(value, at: here)) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONTreeEncoder.ObjectBuilder()
        let nestedPath = here
        builder.items.append(.object(nested))
        return KeyedEncodingContainer(
            JSONTreeKeyedEncodingContainer<NestedKey>(encoder: encoder, builder: nested, path: nestedPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = JSONTreeEncoder.ArrayBuilder()
        let nestedPath = here
        builder.items.append(.array(nested))
        return JSONTreeUnkeyedEncodingContainer(encoder: encoder, builder: nested, path: nestedPath)
    }

    mutating func superEncoder() -> any Encoder {
        let child = encoder.child(at: here)
        builder.items.append(.encoder(child))
        return child
    }
}
