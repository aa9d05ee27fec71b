/// The unkeyed container of ``JSONByteEncoder``: writes each element as it is encoded.
struct JSONByteUnkeyedEncodingContainer: UnkeyedEncodingContainer {
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
    var count: Int { encoder.count(level: level, id: id) }

    @discardableResult @inline(__always)
    private func begin() throws -> Int { try encoder.beginElement(level: level, id: id) }

    mutating func encodeNil() throws {
        try begin()
        encoder.writer.appendASCII("null")
    }
    mutating func encode(_ value: Bool) throws {
        try begin()
        encoder.write(value)
    }
    mutating func encode(_ value: String) throws {
        try begin()
        encoder.writer.writeString(value)
    }
    mutating func encode(_ value: Double) throws {
        try begin()
        try encoder.write(value)
    }
    mutating func encode(_ value: Float) throws {
        try begin()
        try encoder.write(value)
    }
    mutating func encode(_ value: Int) throws {
        try begin()
        encoder.write(value)
    }
    mutating func encode(_ value: Int8) throws {
        try begin()
        encoder.write(value)
    }
    mutating func encode(_ value: Int16) throws {
        try begin()
        encoder.write(value)
    }
    mutating func encode(_ value: Int32) throws {
        try begin()
        encoder.write(value)
    }
    mutating func encode(_ value: Int64) throws {
        try begin()
        encoder.write(value)
    }
    mutating func encode(_ value: UInt) throws {
        try begin()
        encoder.write(value)
    }
    mutating func encode(_ value: UInt8) throws {
        try begin()
        encoder.write(value)
    }
    mutating func encode(_ value: UInt16) throws {
        try begin()
        encoder.write(value)
    }
    mutating func encode(_ value: UInt32) throws {
        try begin()
        encoder.write(value)
    }
    mutating func encode(_ value: UInt64) throws {
        try begin()
        encoder.write(value)
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = try begin()
        try encoder.box(value, key: JSONCodingKey(index: index))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let (level, id) = open(.object)
        return KeyedEncodingContainer(JSONByteKeyedEncodingContainer<NestedKey>(encoder: encoder, level: level, id: id))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let (level, id) = open(.array)
        return JSONByteUnkeyedEncodingContainer(encoder: encoder, level: level, id: id)
    }

    private func open(_ kind: JSONByteEncoder.Frame.Kind) -> (level: Int, id: Int) {
        guard let index = try? begin() else { return (-1, -1) }
        return encoder.openNested(kind, key: JSONCodingKey(index: index))
    }

    /// Only the tree encoder writes a super encoder's value where it belongs.
    mutating func superEncoder() -> any Encoder {
        _ = encoder.fail()
        return encoder
    }
}
