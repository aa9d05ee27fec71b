/// The keyed container of ``JSONByteEncoder``: writes each member, key and value, as it is encoded.
struct JSONByteKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    private let encoder: JSONByteEncoder
    /// The container's frame: its position in the encoder's stack and its number.
    private let level: Int
    private let id: Int

    init(encoder: JSONByteEncoder, level: Int, id: Int) {
        self.encoder = encoder
        self.level = level
        self.id = id
    }

    var codingPath: [any CodingKey] { encoder.path(to: level) }

    @inline(__always)
    private func begin(_ key: Key) throws { try encoder.beginMember(key.stringValue, level: level, id: id) }

    mutating func encodeNil(forKey key: Key) throws {
        try begin(key)
        encoder.writer.appendASCII("null")
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try begin(key)
        encoder.write(value)
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        try begin(key)
        encoder.writer.writeString(value)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        try begin(key)
        try encoder.write(value)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        try begin(key)
        try encoder.write(value)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        try begin(key)
        encoder.write(value)
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
        try begin(key)
        encoder.write(value)
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
        try begin(key)
        encoder.write(value)
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
        try begin(key)
        encoder.write(value)
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        try begin(key)
        encoder.write(value)
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        try begin(key)
        encoder.write(value)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        try begin(key)
        encoder.write(value)
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        try begin(key)
        encoder.write(value)
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        try begin(key)
        encoder.write(value)
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        try begin(key)
        encoder.write(value)
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try begin(key)
        try encoder.box(value, key: key)
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

    // MARK: - Nesting

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let (level, id) = open(.object, key)
        return KeyedEncodingContainer(JSONByteKeyedEncodingContainer<NestedKey>(encoder: encoder, level: level, id: id))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let (level, id) = open(.array, key)
        return JSONByteUnkeyedEncodingContainer(encoder: encoder, level: level, id: id)
    }

    private func open(_ kind: JSONByteEncoder.Frame.Kind, _ key: Key) -> (level: Int, id: Int) {
        do {
            try begin(key)
        } catch {
            return (-1, -1)
        }
        return encoder.openNested(kind, key: key)
    }

    /// Only the tree encoder writes a super encoder's value where it belongs.
    mutating func superEncoder() -> any Encoder {
        _ = encoder.fail()
        return encoder
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        _ = encoder.fail()
        return encoder
    }
}
