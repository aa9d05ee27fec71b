import Foundation

/// Strings: a fast path straight from the input bytes, a slow path for escapes, UTF-8 checked as it is read.
extension JSONParser {
    /// Reads the string value whose opening quote is at `index`. In a large document a short value comes from the
    /// table of recent values when it repeats one (keys are read by `readKey()`).
    @inline(__always)
    mutating func parseString() throws(JSONError) -> String {
        let start = index + 1
        let end = try Self.plainRunEnd(in: bytes, from: start)
        guard bytes[end] == UInt8(ascii: "\"") else { return try parseEscapedString(from: start, escapeAt: end) }
        index = end + 1
        if let table = shortValues { return table.key(bytes, from: start, to: end) }
        return JSONParserKeys.make(bytes, from: start, to: end)
    }

    /// The position of the first quote or backslash at or after `start`, checking the UTF-8 and refusing control
    /// characters on the way. Eight bytes are looked at in one step while none of them needs a closer look.
    ///
    /// Static, like the checks it calls: a non-mutating method called from a mutating one gets a copy of the whole
    /// parser (150 bytes) for each string.
    @inline(__always)
    static func plainRunEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(JSONError) -> Int {
        let raw = UnsafeRawBufferPointer(bytes)
        var position = start
        while true {
            while position + 8 <= bytes.count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                let special = Self.specialBytes(word)
                if special != 0 {
                    position += special.trailingZeroBitCount >> 3
                    break
                }
                position += 8
            }
            guard position < bytes.count else {
                throw JSONError(.unexpectedEnd(expected: "'\"' to close the string"), at: bytes.count, in: bytes)
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return position
            } else if byte < 0x20 {
                throw JSONError(.unescapedControlCharacter, at: position, in: bytes)
            } else if byte >= 0x80 {
                position += try validateUTF8Sequence(in: bytes, at: position)
            } else {
                position += 1
            }
        }
    }

    /// The high bit of each byte of `word` (bytes in memory order from the lowest) that is a quote, a backslash, a
    /// control character or not ASCII. Above the lowest such byte other bytes may be marked too (a borrow), so only
    /// the lowest mark is used.
    @inline(__always)
    private static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let quote = (quotes &- ones) & ~quotes
        let backslash = (backslashes &- ones) & ~backslashes
        let control = (word &- ones &* 0x20) & ~word
        return (quote | backslash | control | word) & (ones &* 0x80)
    }

    /// The slow path for strings with escapes: decoded into the scratch buffer. `escape` is the position of the first
    /// backslash; the bytes before it are already checked.
    mutating func parseEscapedString(from start: Int, escapeAt escape: Int) throws(JSONError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<escape]))
        index = escape
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
                let length = try Self.validateUTF8Sequence(in: bytes, at: index)
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
    private static func validateUTF8Sequence(
        in bytes: UnsafeBufferPointer<UInt8>, at index: Int
    ) throws(JSONError) -> Int {
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
        default: throw JSONError(.invalidUTF8, at: index, in: bytes)
        }
        guard index + length <= bytes.count else { throw JSONError(.invalidUTF8, at: index, in: bytes) }
        let second = bytes[index + 1]
        guard second >= low, second <= high else { throw JSONError(.invalidUTF8, at: index, in: bytes) }
        for offset in 2..<max(2, length) where bytes[index + offset] & 0xC0 != 0x80 {
            throw JSONError(.invalidUTF8, at: index, in: bytes)
        }
        return length
    }
}
