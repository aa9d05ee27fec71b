import Foundation

/// The byte-level JSON writer behind ``JSON/data(options:)``: appends UTF-8 to one growing buffer, copying runs
/// of string bytes that need no escaping in one go. It does not recurse (an explicit stack holds the open arrays
/// and objects), so any depth is written in constant stack space.
///
/// ``JSONByteEncoder`` writes models through the same primitives (strings, integers, doubles, whole values), so
/// both paths escape and spell numbers alike.
struct JSONWriter {
    private(set) var output: [UInt8] = []
    private let pretty: Bool
    private let sorted: Bool
    /// Write non-finite doubles as `NaN`/`Infinity` instead of failing (for `description` only).
    private let lenient: Bool

    init(options: JSON.WritingOptions, lenient: Bool = false, capacity: Int = 64) {
        pretty = options.contains(.prettyPrinted)
        sorted = options.contains(.sortedKeys)
        self.lenient = lenient
        output.reserveCapacity(capacity)
    }

    /// An array or object being written, and the position of the element or member to write next.
    private enum Frame {
        case array([JSON], next: Int)
        case object([JSON.Object.Entry], next: Int)
    }

    /// Writes a value, however deeply nested, with an explicit stack of open arrays and objects instead of
    /// recursion: the depth of a value never reaches the thread's stack.
    mutating func write(_ root: JSON) throws(JSONError) {
        var frames: [Frame] = []
        var value = root
        while true {
            switch value {
            case .null: appendASCII("null")
            case .bool(let flag): flag ? appendASCII("true") : appendASCII("false")
            case .number(.int(let integer)): writeInteger(integer)
            case .number(.literal(let literal)): literal.write(to: &output)
            case .number(.double(let double)):
                guard !writeFinite(double) else { break }
                guard lenient else { throw JSONError.writing(.nonFiniteNumber(path: Self.path(of: frames))) }
                output.append(contentsOf: JSON.Number.double(double).description.utf8)
            case .string(let string): writeString(string)
            case .array(let values):
                if values.isEmpty {
                    appendASCII("[]")
                } else {
                    output.append(UInt8(ascii: "["))
                    frames.append(.array(values, next: 0))
                }
            case .object(let object):
                if object.isEmpty {
                    appendASCII("{}")
                } else {
                    var members = object.entries
                    if sorted { members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } }
                    output.append(UInt8(ascii: "{"))
                    frames.append(.object(members, next: 0))
                }
            }
            // Find the next value to write, closing every container that has none left.
            while true {
                guard let frame = frames.last else { return }
                let indent = frames.count
                switch frame {
                case .array(let values, let position):
                    if position < values.count {
                        if position > 0 { output.append(UInt8(ascii: ",")) }
                        if pretty { newline(indent) }
                        frames[indent - 1] = .array(values, next: position + 1)
                        value = values[position]
                    } else {
                        frames.removeLast()
                        if pretty { newline(indent - 1) }
                        output.append(UInt8(ascii: "]"))
                        continue
                    }
                case .object(let members, let position):
                    if position < members.count {
                        if position > 0 { output.append(UInt8(ascii: ",")) }
                        if pretty { newline(indent) }
                        writeString(members[position].key)
                        output.append(UInt8(ascii: ":"))
                        if pretty { output.append(UInt8(ascii: " ")) }
                        frames[indent - 1] = .object(members, next: position + 1)
                        value = members[position].value
                    } else {
                        frames.removeLast()
                        if pretty { newline(indent - 1) }
                        output.append(UInt8(ascii: "}"))
                        continue
                    }
                }
                break
            }
        }
    }

    /// The key path of the value being written (`results[3].score`), for a write error.
    private static func path(of frames: [Frame]) -> String {
        var path = ""
        for frame in frames.reversed() {
            let step: String
            switch frame {
            case .array(_, let next): step = "[\(next - 1)]"
            case .object(let members, let next): step = members[next - 1].key
            }
            path = path.isEmpty || path.hasPrefix("[") ? step + path : step + "." + path
        }
        return path
    }

    @inline(__always)
    mutating func appendASCII(_ text: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends one byte (a bracket, a comma, a colon).
    @inline(__always)
    mutating func append(_ byte: UInt8) { output.append(byte) }

    /// Appends bytes written before (a key already escaped and quoted).
    @inline(__always)
    mutating func append(_ bytes: [UInt8]) { output.append(contentsOf: bytes) }

    /// Writes a finite double in its shortest round-trip form; `false` (nothing written) for NaN or an infinity.
    @inline(__always)
    mutating func writeFinite(_ double: Double) -> Bool {
        guard double.isFinite else { return false }
        output.append(contentsOf: double.description.utf8)
        return true
    }

    /// Writes a number that is not a double (an `Int64`, or the exact digits of a literal).
    mutating func writeNumber(_ number: JSON.Number) -> Bool {
        switch number {
        case .int(let integer): writeInteger(integer)
        case .literal(let literal): literal.write(to: &output)
        case .double(let double): return writeFinite(double)
        }
        return true
    }

    private mutating func newline(_ indent: Int) {
        output.append(UInt8(ascii: "\n"))
        for _ in 0..<indent * 2 { output.append(UInt8(ascii: " ")) }
    }

    mutating func writeInteger(_ value: Int64) {
        if value >= 0, value < 10 {
            output.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var position = digits.count
            repeat {
                position -= 1
                digits[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[position...]))
        }
    }

    mutating func writeString(_ string: String) {
        output.append(UInt8(ascii: "\""))
        var text = string
        text.withUTF8 { bytes in
            var runStart = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte != 0xE2 {
                    index += 1
                    continue
                }
                if byte == 0xE2 {
                    // U+2028 and U+2029 are valid JSON but break JavaScript string literals: escape them.
                    guard index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] & 0xFE == 0xA8 else {
                        index += 1
                        continue
                    }
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    bytes[index + 2] == 0xA8 ? appendASCII("\\u2028") : appendASCII("\\u2029")
                    index += 3
                    runStart = index
                    continue
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                switch byte {
                case UInt8(ascii: "\""): appendASCII("\\\"")
                case UInt8(ascii: "\\"): appendASCII("\\\\")
                case 0x08: appendASCII("\\b")
                case 0x0C: appendASCII("\\f")
                case 0x0A: appendASCII("\\n")
                case 0x0D: appendASCII("\\r")
                case 0x09: appendASCII("\\t")
                default:
                    appendASCII("\\u00")
                    output.append(hexDigit(byte >> 4))
                    output.append(hexDigit(byte & 0x0F))
                }
                index += 1
                runStart = index
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
