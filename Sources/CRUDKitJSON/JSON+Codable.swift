import Foundation

extension JSON: Codable {
    /// Decodes any value a decoder offers.
    ///
    /// CRUDKit's own decoder hands over the parsed value directly, keys and order untouched. Other decoders
    /// (such as `JSONDecoder`) are asked for an object as a `[String: JSON]` dictionary, so key strategies do not
    /// rewrite its keys, but its members come in ascending key order. A number is read through the widest exact type
    /// the decoder offers — `Int64`, `UInt64`, then `Decimal` (`JSONDecoder` reads `18446744073709551615` and
    /// `1234567890.123456789` exactly so), then `Double` — each checked against the number's `Double` value; a
    /// number none of them holds (`1e-400`) is refused rather than changed.
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
        } else if let double = try? container.decode(Double.self) {
            guard let number = Self.exactNumber(in: container, double: double) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "The number cannot be decoded without changing its value.")
            }
            self = .number(number)
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

    /// The number a decoder holds, through the widest exact type it offers, when that type agrees with the number's
    /// `Double` value (a decoder may give `0` as the `Int64` of `1e-400`, which no `Double` holds).
    private static func exactNumber(in container: any SingleValueDecodingContainer, double: Double) -> Number? {
        if let value = try? container.decode(Int64.self), Double(value) == double { return .int(value) }
        if let value = try? container.decode(UInt64.self), Double(value) == double { return Number(exactly: value) }
        // The decimal when it holds more digits than the double writes (`1234567890.123456789`); the double
        // otherwise (a decimal of `8.820070124696976e+92` spells out the double's digits and zeros).
        if let decimal = try? container.decode(Decimal.self), decimal.isFinite,
            let number = Number(validText: decimal.description), number.doubleValue == double,
            JSONDecimalDigits(decimal.description.utf8) != JSONDecimalDigits(double.description.utf8)
        {
            return number
        }
        return double.isFinite ? .double(double) : nil
    }

    /// Encodes the value. CRUDKit's own encoder takes it as it is; other encoders get objects as
    /// `[String: JSON]` dictionaries, so key strategies do not rewrite their keys (and member order is the
    /// encoder's), and numbers as the exact type that holds them: `Int64`, `UInt64`, `Decimal` or `Double`.
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: `EncodingError` when the encoder refuses a value (such as a non-finite double), and
    ///   `EncodingError.invalidValue` for what no such type holds exactly (`1e-400`, a number of more than 38
    ///   significant digits), and for an object with two keys that differ only in Unicode normalization (a
    ///   `[String: JSON]` dictionary would merge them).
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
        case .number(let number):
            var container = encoder.singleValueContainer()
            if let value = number.uint64Value {
                try container.encode(value)
            } else if let value = number.decimalValue {
                try container.encode(value)
            } else {
                throw EncodingError.invalidValue(
                    number,
                    .init(
                        codingPath: encoder.codingPath,
                        debugDescription: "The number \(number) has no exact value in Int64, UInt64, Decimal or Double."
                    ))
            }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let object):
            let dictionary = object.dictionary
            guard dictionary.count == object.count else {
                throw EncodingError.invalidValue(
                    self,
                    .init(
                        codingPath: encoder.codingPath,
                        debugDescription: "The object has keys that differ only in Unicode normalization."))
            }
            var container = encoder.singleValueContainer()
            try container.encode(dictionary)
        }
    }
}
