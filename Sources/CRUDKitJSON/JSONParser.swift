import Foundation

/// The byte-level JSON reader behind ``JSON/init(data:options:)``: one pass over UTF-8 bytes, RFC 8259 strict.
///
/// It does not recurse: open arrays and objects are kept on an explicit stack of small frames, so a document
/// nested up to the depth limit is read in the same stack space as a flat one (a 512 KB thread is enough).
/// Strings without escapes become `String`s straight from the input bytes; arrays and objects are gathered on
/// two reusable stacks so each one is allocated once, at its final size.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    private let maxDepth: Int
    var scratch: [UInt8] = []
    /// The arrays and objects open around the value being read, outermost first; its count is the depth.
    private var frames = JSONParserStack<Frame>(capacity: 16)
    /// Elements of the open arrays, moved into an array of their own when it closes.
    private var valueStack = JSONParserStack<JSON>(capacity: 64)
    /// Members of the open objects, moved into an object of their own when it closes.
    private var memberStack = JSONParserStack<JSON.Object.Entry>(capacity: 64)
    /// Key-to-position maps of the open objects that have outgrown a linear search.
    private var positionStack: [[JSONByteKey: Int]] = []
    /// Keys made earlier in a large document, shared by the keys that repeat them.
    let keys: JSONParserKeys?
    /// The keys of the previous object at each depth of a large document, by position.
    let shapes: JSONParserShapes?
    /// Short string values made earlier in a large document (up to 15 bytes, what a `String` holds without an
    /// allocation), shared by the values that repeat them.
    let shortValues: JSONParserKeys?

    private init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        // A short document seldom repeats keys: the table would cost more than it saves.
        // Longer keys are made every time: comparing their bytes would cost about as much.
        keys = bytes.count >= 2048 ? JSONParserKeys(longest: 48) : nil
        shortValues = bytes.count >= 2048 ? JSONParserKeys(longest: 15) : nil
        shapes = bytes.count >= 2048 ? JSONParserShapes() : nil
    }

    /// Releases what the stacks and the key table still hold, once, however parsing ended.
    private func free() {
        frames.free()
        valueStack.free()
        memberStack.free()
        keys?.free()
        shortValues?.free()
        shapes?.free()
    }

    /// Parses one complete document.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, options: JSON.ParsingOptions) throws(JSONError) -> JSON {
        var parser = JSONParser(bytes: bytes, maxDepth: max(0, options.maxDepth))
        defer { parser.free() }
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

    /// An array or object being read: where its elements or members start on the value or member stack.
    private struct Frame {
        var base: Int
        /// ``array`` for an array; for an object, the index of its key-to-position map on `positionStack`, or
        /// ``linear`` while the object is small enough to search linearly.
        var positions: Int
        /// The key of the member whose value is being read (objects only).
        var key: String
        /// The filter bit of `key` (see ``JSONParser/keyBit(length:first:last:)``).
        var keyBit: UInt64 = 0
        /// The filter bits of the keys read so far (objects searched linearly): a key whose bit is clear is new, so
        /// the search for an earlier member with the same key is skipped.
        var seen: UInt64 = 0

        static let array = -2
        static let linear = -1
    }

    /// Reads one value, however deeply nested, with an explicit stack of open arrays and objects instead of
    /// recursion: the depth of a document never reaches the thread's stack.
    ///
    /// Elements of open arrays wait on `valueStack`; members of open objects wait on `memberStack`; the key of
    /// the member being read waits in its object's frame until its value is complete.
    private mutating func parseValue() throws(JSONError) -> JSON {
        while true {
            var value: JSON
            guard index < bytes.count else { throw unexpected("a value") }
            switch bytes[index] {
            case UInt8(ascii: "\""): value = .string(try parseString())
            case UInt8(ascii: "{"):
                try enter()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    value = .object(JSON.Object())
                } else {
                    let (key, bit) = try readKey(depth: frames.count, position: 0)
                    frames.push(Frame(base: memberStack.count, positions: Frame.linear, key: key, keyBit: bit))
                    continue
                }
            case UInt8(ascii: "["):
                try enter()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    value = .array([])
                } else {
                    frames.push(Frame(base: valueStack.count, positions: Frame.array, key: ""))
                    continue
                }
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try parseNumber())
            case UInt8(ascii: "N"), UInt8(ascii: "I"):
                throw fail(.nonFiniteLiteral, at: index)
            default:
                throw unexpected("a value")
            }
            // A value is complete: add it to the innermost open container, closing every container that ends
            // after it, until one expects another value (or the document is complete).
            while true {
                guard frames.count > 0 else { return value }
                let frame = frames.top
                skipWhitespace()
                if frame.pointee.positions == Frame.array {
                    valueStack.push(consume value)
                    guard index < bytes.count else { throw unexpected("',' or ']'") }
                    if bytes[index] == UInt8(ascii: ",") {
                        let comma = index
                        index += 1
                        skipWhitespace()
                        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                            throw fail(.trailingComma, at: comma)
                        }
                    } else if bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        value = .array(valueStack.popArray(from: frame.pointee.base))
                        _ = frames.pop()
                        continue
                    } else {
                        throw unexpected("',' or ']'")
                    }
                } else {
                    var key = ""
                    swap(&key, &frame.pointee.key)
                    if frame.pointee.positions == Frame.linear, frame.pointee.seen & frame.pointee.keyBit == 0 {
                        // The common case, inline: a new key in a small object.
                        frame.pointee.seen |= frame.pointee.keyBit
                        memberStack.push(JSON.Object.Entry(key: consume key, value: consume value))
                        if memberStack.count - frame.pointee.base > JSON.Object.indexThreshold {
                            addPositionMap(to: frame)
                        }
                    } else {
                        insert(key: consume key, value: consume value, into: frame)
                    }
                    guard index < bytes.count else { throw unexpected("',' or '}'") }
                    if bytes[index] == UInt8(ascii: ",") {
                        let comma = index
                        index += 1
                        skipWhitespace()
                        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                            throw fail(.trailingComma, at: comma)
                        }
                        (frame.pointee.key, frame.pointee.keyBit) = try readKey(
                            depth: frames.count - 1, position: memberStack.count - frame.pointee.base)
                    } else if bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        value = .object(JSON.Object(uniqueEntries: memberStack.popArray(from: frame.pointee.base)))
                        if frame.pointee.positions >= 0 { positionStack.removeLast() }
                        _ = frames.pop()
                        continue
                    } else {
                        throw unexpected("',' or '}'")
                    }
                }
                break
            }
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        for offset in 0..<literal.utf8CodeUnitCount {
            guard index < bytes.count, bytes[index] == literal.utf8Start[offset] else {
                throw unexpected("'\(literal)'")
            }
            index += 1
        }
    }

    /// Steps over the `[` or `{` at `index`, refusing one level more than the limit.
    private mutating func enter() throws(JSONError) {
        if frames.count >= maxDepth { throw fail(.tooDeep(limit: maxDepth), at: index) }
        index += 1
        skipWhitespace()
    }

    /// Reads `"key":` and the whitespace after it, and returns the key with its filter bit. `depth` and `position`
    /// (the object's nesting and the member's place in it) say which key of the previous object to try first.
    private mutating func readKey(depth: Int, position: Int) throws(JSONError) -> (key: String, bit: UInt64) {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw unexpected("a string key") }
        let start = index + 1
        let key: String
        let bit: UInt64
        let predicted = shapes?.slot(depth: depth, position: position)
        if let predicted, case let length = predicted.pointee.length, length >= 0, start + length < bytes.count,
            bytes[start + length] == UInt8(ascii: "\""),
            JSONParserKeys.same(bytes, start, predicted.pointee.start, length)
        {
            index = start + length + 1
            key = predicted.pointee.key
            bit = predicted.pointee.bit
        } else {
            let end = try Self.plainRunEnd(in: bytes, from: start)
            if bytes[end] == UInt8(ascii: "\"") {
                index = end + 1
                key = keys?.key(bytes, from: start, to: end) ?? JSONParserKeys.make(bytes, from: start, to: end)
                bit = end > start ? Self.keyBit(length: end - start, first: bytes[start], last: bytes[end - 1]) : 1
                if let predicted {
                    predicted.pointee = JSONParserShapes.Key(start: start, length: end - start, key: key, bit: bit)
                }
            } else {
                key = try parseEscapedString(from: start, escapeAt: end)
                let utf8 = key.utf8
                bit = Self.keyBit(length: utf8.count, first: utf8.first ?? 0, last: utf8.last ?? 0)
            }
        }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw unexpected("':'") }
        index += 1
        skipWhitespace()
        return (key, bit)
    }

    /// One of 64 bits chosen by a key's UTF-8 length and first and last bytes (the empty key has bit 0): equal keys
    /// have the same bit, whether they were written with escapes or not.
    @inline(__always)
    static func keyBit(length: Int, first: UInt8, last: UInt8) -> UInt64 {
        guard length > 0 else { return 1 }
        let mixed =
            (UInt64(truncatingIfNeeded: length) << 16 | UInt64(first) << 8 | UInt64(last)) &* 0x9E37_79B9_7F4A_7C15
        return 1 << (mixed >> 58)
    }

    /// Appends a member to the innermost open object, or replaces the value of an earlier member with the same key
    /// (the last one wins). Objects with more than `JSON.Object.indexThreshold` members get a key-to-position
    /// map on `positionStack`, noted in their frame; smaller ones are searched linearly, and only when the key's
    /// filter bit says it may repeat one.
    private mutating func insert(
        key: consuming String, value: consuming JSON, into frame: UnsafeMutablePointer<Frame>
    ) {
        let base = frame.pointee.base
        let positions = frame.pointee.positions
        if positions < 0 {
            let bit = frame.pointee.keyBit
            if frame.pointee.seen & bit != 0 {
                let length = key.utf8.count
                let members = memberStack.base
                for position in base..<memberStack.count
                where JSON.Object.sameKey(members[position].key, key, length: length) {
                    members[position].value = value
                    return
                }
            }
            frame.pointee.seen |= bit
            memberStack.push(JSON.Object.Entry(key: key, value: value))
            if memberStack.count - base > JSON.Object.indexThreshold { addPositionMap(to: frame) }
        } else if let position = positionStack[positions][JSONByteKey(copy key)] {
            memberStack.base[position].value = value
        } else {
            positionStack[positions][JSONByteKey(copy key)] = memberStack.count
            memberStack.push(JSON.Object.Entry(key: key, value: value))
        }
    }

    /// Gives the innermost open object, grown past `JSON.Object.indexThreshold` members, a key-to-position map.
    private mutating func addPositionMap(to frame: UnsafeMutablePointer<Frame>) {
        var map = [JSONByteKey: Int]()
        for position in frame.pointee.base..<memberStack.count {
            map[JSONByteKey(memberStack.base[position].key)] = position
        }
        positionStack.append(map)
        frame.pointee.positions = positionStack.count - 1
    }
}
