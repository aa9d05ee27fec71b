import Foundation

/// Why bytes could not be read as JSON, or a value could not be written as JSON, and where.
///
/// Parse errors carry the byte ``offset`` of the offending byte and its 1-based ``line`` and ``column``
/// (the column counts Unicode scalars, so it matches what an editor shows); write errors have no position
/// (``offset`` is `-1`) and name the key path of the value that could not be written.
///
/// ```swift
/// do {
///     _ = try JSON(string: #"{"a": [1, 2,]}"#)
/// } catch let error as JSONError {
///     print(error)  // trailing comma at line 1, column 12 (byte 11)
/// }
/// ```
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Hashable {
        /// The input ended while `expected` was still needed (a truncated document).
        case unexpectedEnd(expected: String)
        /// A byte that cannot start or continue the value here; `expected` says what could.
        case unexpectedCharacter(expected: String)
        /// A comma right before `]` or `}`.
        case trailingComma
        /// A control character (U+0000 to U+001F) inside a string; it must be escaped.
        case unescapedControlCharacter
        /// Bytes that are not valid UTF-8 inside a string.
        case invalidUTF8
        /// A backslash followed by something other than `" \ / b f n r t u`.
        case invalidEscape
        /// A `\u` escape of a UTF-16 surrogate without its pair.
        case loneSurrogate
        /// A number with a superfluous leading zero, such as `012`.
        case leadingZero
        /// `NaN`, `Infinity` or `-Infinity`, which JSON does not have.
        case nonFiniteLiteral
        /// A number too large to be held in a `Double`, such as `1e400`.
        case numberOutOfRange
        /// More bytes after a complete value.
        case trailingGarbage
        /// Arrays and objects nested deeper than the limit.
        case tooDeep(limit: Int)
        /// Writing met a double that is NaN or infinite, at `path` (empty for the document itself).
        case nonFiniteNumber(path: String)
    }

    /// What was wrong.
    public var reason: Reason
    /// The byte offset of the offending byte (0-based), or `-1` for write errors.
    public var offset: Int
    /// The line of the offending byte (1-based), or `0` for write errors.
    public var line: Int
    /// The column of the offending byte in Unicode scalars (1-based), or `0` for write errors.
    public var column: Int

    /// Creates an error; ``line`` and ``column`` are given, not computed.
    /// - Parameters:
    ///   - reason: What was wrong.
    ///   - offset: The byte offset.
    ///   - line: The 1-based line.
    ///   - column: The 1-based column.
    package init(_ reason: Reason, offset: Int, line: Int, column: Int) {
        self.reason = reason
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// An error at `offset` in `bytes`, with the line and column computed from the bytes.
    init(_ reason: Reason, at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) {
        var line = 1
        var column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        self.init(reason, offset: offset, line: line, column: column)
    }

    /// A write error, which has no position.
    package static func writing(_ reason: Reason) -> JSONError {
        JSONError(reason, offset: -1, line: 0, column: 0)
    }

    /// What was expected, in words: `a value`, `',' or ']'`, `a digit`.
    package var expected: String {
        switch reason {
        case .unexpectedEnd(let expected), .unexpectedCharacter(let expected): return expected
        case .trailingComma: return "a value after ','"
        case .unescapedControlCharacter: return "an escaped control character"
        case .invalidUTF8: return "valid UTF-8"
        case .invalidEscape: return "one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u"
        case .loneSurrogate: return "a complete UTF-16 surrogate pair"
        case .leadingZero: return "no leading zero"
        case .nonFiniteLiteral: return "a value (JSON has no NaN or Infinity)"
        case .numberOutOfRange: return "a number within the range of a Double"
        case .trailingGarbage: return "the end of the input"
        case .tooDeep(let limit): return "at most \(limit) nested arrays and objects"
        case .nonFiniteNumber: return "a finite number"
        }
    }

    /// One line saying what was wrong and where.
    public var description: String {
        let what: String
        switch reason {
        case .unexpectedEnd(let expected): what = "unexpected end of input, expected \(expected)"
        case .unexpectedCharacter(let expected): what = "unexpected character, expected \(expected)"
        case .trailingComma: what = "trailing comma"
        case .unescapedControlCharacter: what = "unescaped control character in a string"
        case .invalidUTF8: what = "invalid UTF-8 in a string"
        case .invalidEscape: what = "invalid escape sequence"
        case .loneSurrogate: what = "lone UTF-16 surrogate in a \\u escape"
        case .leadingZero: what = "number with a leading zero"
        case .nonFiniteLiteral: what = "NaN and Infinity are not JSON"
        case .numberOutOfRange: what = "number out of the range of a Double"
        case .trailingGarbage: what = "unexpected data after the JSON value"
        case .tooDeep(let limit): what = "nesting deeper than \(limit) levels"
        case .nonFiniteNumber(let path):
            return "cannot write a non-finite number at \(path.isEmpty ? "the document" : "`\(path)`")"
        }
        return "\(what) at line \(line), column \(column) (byte \(offset))"
    }
}

extension JSONError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
