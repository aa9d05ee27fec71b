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
    private var positionStack: [[String: Int]] = []
    /// Keys made earlier in a large document, shared by the keys that repeat them.
    let keys: JSONParserKeys?
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
    }

    /// Releases what the stacks and the key table still hold, once, however parsing ended.
    private func free() {
        frames.free()
        valueStack.free()
        memberStack.free()
        keys?.free()
        shortValues?.free()
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
                    let key = try readKey()
                    frames.push(Frame(base: memberStack.count, positions: Frame.linear, key: key))
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
                    valueStack.push(value)
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
                    insert(key: key, value: value, into: frame)
                    guard index < bytes.count else { throw unexpected("',' or '}'") }
                    if bytes[index] == UInt8(ascii: ",") {
                        let comma = index
                        index += 1
                        skipWhitespace()
                        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                            throw fail(.trailingComma, at: comma)
                        }
                        frame.pointee.key = try readKey()
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

    /// Reads `"key":` and the whitespace after it, and returns the key.
    private mutating func readKey() throws(JSONError) -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw unexpected("a string key") }
        let key = try parseString(interning: true)
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw unexpected("':'") }
        index += 1
        skipWhitespace()
        return key
    }

    /// Appends a member to the innermost open object, or replaces the value of an earlier member with the same key
    /// (the last one wins). Objects with more than `JSON.Object.indexThreshold` members get a key-to-position
    /// map on `positionStack`, noted in their frame.
    @inline(__always)
    private mutating func insert(key: String, value: JSON, into frame: UnsafeMutablePointer<Frame>) {
        let base = frame.pointee.base
        let positions = frame.pointee.positions
        if positions < 0 {
            let length = key.utf8.count
            let members = memberStack.base
            for position in base..<memberStack.count
            where JSON.Object.sameKey(members[position].key, key, length: length) {
                members[position].value = value
                return
            }
            memberStack.push(JSON.Object.Entry(key: key, value: value))
            if memberStack.count - base > JSON.Object.indexThreshold {
                var map = [String: Int]()
                for position in base..<memberStack.count { map[memberStack.base[position].key] = position }
                positionStack.append(map)
                frame.pointee.positions = positionStack.count - 1
            }
        } else if let position = positionStack[positions][key] {
            memberStack.base[position].value = value
        } else {
            positionStack[positions][key] = memberStack.count
            memberStack.push(JSON.Object.Entry(key: key, value: value))
        }
    }
}
