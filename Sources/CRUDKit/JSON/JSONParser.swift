import Foundation

/// The byte-level JSON reader behind ``JSON/init(data:options:)``: one pass over UTF-8 bytes, recursive descent,
/// RFC 8259 strict.
///
/// Strings without escapes become `String`s straight from the input bytes; arrays and objects are gathered on
/// two reusable stacks so each one is allocated once, at its final size.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private let maxDepth: Int
    private var depth = 0
    private var scratch: [UInt8] = []
    private var valueStack: [JSON] = []
    private var memberStack: [JSON.Object.Member] = []

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

    private func fail(_ reason: JSONError.Reason, at offset: Int) -> JSONError {
        JSONError(reason, at: offset, in: bytes)
    }

    /// "Unexpected end" at the end of input, "unexpected character" anywhere else.
    private func unexpected(_ expected: String) -> JSONError {
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
        return .object(JSON.Object(uniqueMembers: members))
    }

    /// Appends a member, or replaces the value of an earlier member with the same key (the last one wins).
    @inline(__always)
    private mutating func insert(key: String, value: JSON, base: Int, positions: inout [String: Int]?) {
        if positions == nil {
            for position in base..<memberStack.count where memberStack[position].key == key {
                memberStack[position].value = value
                return
            }
            memberStack.append((key: key, value: value))
            if memberStack.count - base > JSON.Object.indexThreshold {
                var map = [String: Int]()
                for position in base..<memberStack.count { map[memberStack[position].key] = position }
                positions = map
            }
        } else if let position = positions?[key] {
            memberStack[position].value = value
        } else {
            positions?[key] = memberStack.count
            memberStack.append((key: key, value: value))
        }
    }

    // MARK: - Strings

    private mutating func parseString() throws(JSONError) -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            } else if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(from: start)
            } else if byte < 0x20 {
                throw fail(.unescapedControlCharacter, at: index)
            } else if byte >= 0x80 {
                index += try validateUTF8Sequence()
            } else {
                index += 1
            }
        }
        throw fail(.unexpectedEnd(expected: "'\"' to close the string"), at: index)
    }

    /// The slow path for strings with escapes: decoded into the scratch buffer.
    private mutating func parseEscapedString(from start: Int) throws(JSONError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                try parseEscape()
            } else if byte < 0x20 {
                throw fail(.unescapedControlCharacter, at: index)
            } else if byte >= 0x80 {
                let length = try validateUTF8Sequence()
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<index + length]))
                index += length
            } else {
                scratch.append(byte)
                index += 1
            }
        }
        throw fail(.unexpectedEnd(expected: "'\"' to close the string"), at: index)
    }

    private mutating func parseEscape() throws(JSONError) {
        let backslash = index
        guard index + 1 < bytes.count else { throw fail(.unexpectedEnd(expected: "an escape"), at: index + 1) }
        let decoded: UInt8
        switch bytes[index + 1] {
        case UInt8(ascii: "\""): decoded = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): decoded = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): decoded = UInt8(ascii: "/")
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"):
            index += 2
            var scalar = UInt32(try parseHex4())
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw fail(.loneSurrogate, at: backslash) }
                index += 2
                let low = UInt32(try parseHex4())
                guard (0xDC00...0xDFFF).contains(low) else { throw fail(.loneSurrogate, at: backslash) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw fail(.loneSurrogate, at: backslash)
            }
            appendUTF8(scalar)
            return
        default:
            throw fail(.invalidEscape, at: backslash)
        }
        scratch.append(decoded)
        index += 2
    }

    private mutating func parseHex4() throws(JSONError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw unexpected("a hex digit") }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw unexpected("a hex digit")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case ..<0x80:
            scratch.append(UInt8(scalar))
        case ..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Checks the multi-byte UTF-8 sequence at `index` (Unicode Table 3-7: no overlong forms, no surrogates,
    /// nothing above U+10FFFF) and returns its length.
    private func validateUTF8Sequence() throws(JSONError) -> Int {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, low) = (3, 0xA0)
        case 0xED: (length, high) = (3, 0x9F)
        case 0xE1...0xEF: length = 3
        case 0xF0: (length, low) = (4, 0x90)
        case 0xF4: (length, high) = (4, 0x8F)
        case 0xF1...0xF3: length = 4
        default: throw fail(.invalidUTF8, at: index)
        }
        guard index + length <= bytes.count else { throw fail(.invalidUTF8, at: index) }
        let second = bytes[index + 1]
        guard second >= low, second <= high else { throw fail(.invalidUTF8, at: index) }
        for offset in 2..<max(2, length) where bytes[index + offset] & 0xC0 != 0x80 {
            throw fail(.invalidUTF8, at: index)
        }
        return length
    }

    // MARK: - Numbers

    private mutating func parseNumber() throws(JSONError) -> JSON.Number {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count else { throw unexpected("a digit") }
        var mantissa: UInt64 = 0
        var overflowed = false
        @inline(__always) func accumulate(_ byte: UInt8) {
            guard !overflowed else { return }
            let (times10, o1) = mantissa.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(byte &- UInt8(ascii: "0")))
            if o1 || o2 { overflowed = true } else { mantissa = sum }
        }
        let first = bytes[index]
        if first == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw fail(.leadingZero, at: index - 1) }
        } else if isDigit(first) {
            while index < bytes.count, isDigit(bytes[index]) {
                accumulate(bytes[index])
                index += 1
            }
        } else if first == UInt8(ascii: "I") {
            throw fail(.nonFiniteLiteral, at: start)
        } else {
            throw unexpected("a digit")
        }
        var isInteger = true
        var fractionDigits = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw unexpected("a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) {
                accumulate(bytes[index])
                fractionDigits += 1
                index += 1
            }
        }
        var exponent = 0
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw unexpected("a digit in the exponent") }
            while index < bytes.count, isDigit(bytes[index]) {
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        if isInteger, !overflowed {
            if !negative, mantissa <= UInt64(Int64.max) { return .int(Int64(mantissa)) }
            if negative, mantissa != 0, mantissa <= UInt64(Int64.max) + 1 {
                return .int(Int64(bitPattern: 0 &- mantissa))
            }
        }
        // Exact fast path (Clinger): both the mantissa and the power of ten are exact doubles.
        let power = exponent - fractionDigits
        if !overflowed, mantissa <= 1 << 53, (-22...22).contains(power) {
            var value = Double(mantissa)
            value = power < 0 ? value / powersOfTen[-power] : value * powersOfTen[power]
            return .double(negative ? -value : value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw fail(.numberOutOfRange, at: start) }
        return .double(value)
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}

private let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]
