/// The single-value container of ``JSONByteEncoder``: writes the value of its frame, once.
struct JSONByteSingleValueContainer: SingleValueEncodingContainer {
    private let encoder: JSONByteEncoder
    /// The value's frame: its position in the encoder's stack and its number.
    private let level: Int
    private let id: Int

    init(encoder: JSONByteEncoder, level: Int, id: Int) {
        self.encoder = encoder
        self.level = level
        self.id = id
    }

    var codingPath: [any CodingKey] { encoder.path(to: level) }

    @inline(__always)
    private func begin() throws { try encoder.beginSingleValue(level: level, id: id) }

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
        try begin()
        try encoder.box(value, key: nil)
    }
}
