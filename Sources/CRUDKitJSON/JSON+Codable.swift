import Foundation

extension JSON: Codable {
    /// Decodes any value a decoder offers.
    ///
    /// CRUDKit's own decoder hands over the parsed value directly, keys and order untouched. Other decoders
    /// (such as `JSONDecoder`) are asked for an object as a `[String: JSON]` dictionary, so key strategies do not
    /// rewrite its keys, but its member order is the dictionary's.
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when the decoder holds nothing JSON can represent.
    public init(from decoder: any Decoder) throws {
        if let tree = decoder as? JSONTreeDecoder {
            self = tree.value
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(.int(value))
        } else if let value = try? container.decode(Double.self) {
            self = .number(.double(value))
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let values = try? container.decode([JSON].self) {
            self = .array(values)
        } else if let members = try? container.decode([String: JSON].self) {
            self = .object(Object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "No JSON value could be decoded.")
        }
    }

    /// Encodes the value. CRUDKit's own encoder takes it as it is; other encoders get objects as
    /// `[String: JSON]` dictionaries, so key strategies do not rewrite their keys.
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: `EncodingError` when the encoder refuses a value (such as a non-finite double).
    public func encode(to encoder: any Encoder) throws {
        if let tree = encoder as? JSONTreeEncoder {
            tree.storeValue(self)
            return
        }
        if let bytes = encoder as? JSONByteEncoder {
            try bytes.storeValue(self)
            return
        }
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(.int(let value)):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(.double(let value)):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(.literal(let literal)):
            var container = encoder.singleValueContainer()
            try container.encode(Decimal(string: literal.text, locale: JSON.Number.posix) ?? Decimal.nan)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let object):
            var container = encoder.singleValueContainer()
            try container.encode(object.dictionary)
        }
    }
}
