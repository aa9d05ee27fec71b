import Foundation

/// The byte-level JSON reader behind ``JSON/init(data:options:)``: one pass over UTF-8 bytes, recursive descent,
/// RFC 8259 strict.
///
/// Strings without escapes become `String`s straight from the input bytes; arrays and objects are gathered on
/// two reusable stacks so each one is allocated once, at its final size.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    private let maxDepth: Int
    private var depth = 0
    var scratch: [UInt8] = []
    private var valueStack: [JSON] = []
    private var memberStack: [JSON.Object.Entry] = []

    private init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// Parses one complete document.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, options: JSON.ParsingOptions) throws(JSONError) -> JSON {
        var parser = JSONParser(bytes: bytes, maxDepth: max(0, options.maxDepth))
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count { throw parser.fail(.trailingGarbage, at: parser.index) }
        return value
    }

    // MARK: - Errors

    func fail(_ reason: JSONError.Reason, at offset: Int) -> JSONError {
        JSONError(reason, at: offset, in: bytes)
    }

    /// "Unexpected end" at the end of input, "unexpected character" anywhere else.
    func unexpected(_ expected: String) -> JSONError {
        index >= bytes.count
            ? fail(.unexpectedEnd(expected: expected), at: index)
            : fail(.unexpectedCharacter(expected: expected), at: index)
    }

    // MARK: - Structure

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONError) -> JSON {
        guard index < bytes.count else { throw unexpected("a value") }
        switch bytes[index] {
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            throw fail(.nonFiniteLiteral, at: index)
        default:
            throw unexpected("a value")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let expected = "'\(literal)'"
        for offset in 0..<literal.utf8CodeUnitCount {
            guard index < bytes.count, bytes[index] == literal.utf8Start[offset] else { throw unexpected(expected) }
            index += 1
        }
    }

    private mutating func enter() throws(JSONError) {
        depth += 1
        if depth > maxDepth { throw fail(.tooDeep(limit: maxDepth), at: index) }
        index += 1
        skipWhitespace()
    }

    private mutating func parseArray() throws(JSONError) -> JSON {
        try enter()
        defer { depth -= 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array([])
        }
        let base = valueStack.count
        while true {
            valueStack.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw unexpected("',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") {
                let comma = index
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { throw fail(.trailingComma, at: comma) }
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                break
            } else {
                throw unexpected("',' or ']'")
            }
        }
        let values = Array(valueStack[base...])
        valueStack.removeSubrange(base...)
        return .array(values)
    }

    private mutating func parseObject() throws(JSONError) -> JSON {
        try enter()
        defer { depth -= 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(JSON.Object())
        }
        let base = memberStack.count
        var positions: [String: Int]?
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw unexpected("a string key") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw unexpected("':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            insert(key: key, value: value, base: base, positions: &positions)
            skipWhitespace()
            guard index < bytes.count else { throw unexpected("',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") {
                let comma = index
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { throw fail(.trailingComma, at: comma) }
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                break
            } else {
                throw unexpected("',' or '}'")
            }
        }
        let members = Array(memberStack[base...])
        memberStack.removeSubrange(base...)
        return .object(JSON.Object(uniqueEntries: members))
    }

    /// Appends a member, or replaces the value of an earlier member with the same key (the last one wins).
    @inline(__always)
    private mutating func insert(key: String, value: JSON, base: Int, positions: inout [String: Int]?) {
        if positions == nil {
            let length = key.utf8.count
            for position in base..<memberStack.count
            where JSON.Object.sameKey(memberStack[position].key, key, length: length) {
                memberStack[position].value = value
                return
            }
            memberStack.append(JSON.Object.Entry(key: key, value: value))
            if memberStack.count - base > JSON.Object.indexThreshold {
                var map = [String: Int]()
                for position in base..<memberStack.count { map[memberStack[position].key] = position }
                positions = map
            }
        } else if let position = positions?[key] {
            memberStack[position].value = value
        } else {
            positions?[key] = memberStack.count
            memberStack.append(JSON.Object.Entry(key: key, value: value))
        }
    }
}
