import Foundation
import Testing

@testable import CRUDKit

@Suite struct JSONParserTests {
    // MARK: - Valid input

    @Test func topLevelScalarsAndWhitespace() throws {
        #expect(try JSON(string: " null ") == .null)
        #expect(try JSON(string: "true") == true)
        #expect(try JSON(string: "\t\r\nfalse\n") == false)
        #expect(try JSON(string: "\"s\"") == "s")
        #expect(try JSON(string: "12") == 12)
        #expect(try JSON(string: "[]") == [])
        #expect(try JSON(string: "{ }") == [:])
        #expect(try JSON(bytes: Array("[1]".utf8)) == [1])
        #expect(try JSON(data: Data([0xEF, 0xBB, 0xBF]) + Data("{\"a\":1}".utf8)) == ["a": 1])
    }

    @Test func integersStayExact() throws {
        let id = try JSON(string: "9007199254740993")
        #expect(id == .number(.int(9_007_199_254_740_993)))
        #expect(try id.jsonString() == "9007199254740993")
        #expect(try JSON(string: "9223372036854775807") == .number(.int(.max)))
        #expect(try JSON(string: "-9223372036854775808") == .number(.int(.min)))
        // Beyond Int64: every digit is kept (see ExactNumberTests).
        #expect(try JSON(string: "9223372036854775808").uint64 == 9_223_372_036_854_775_808)
        #expect(try JSON(string: "-9223372036854775809").jsonString() == "-9223372036854775809")
        #expect(try JSON(string: "123456789012345678901234567890").double == 1.2345678901234568e29)
        #expect(try JSON(string: "0") == .number(.int(0)))
        let negativeZero = try JSON(string: "-0")
        #expect(negativeZero.double?.sign == .minus)
    }

    @Test func doublesMatchTheCorrectlyRoundedValue() throws {
        let texts = [
            "0.1", "1.5", "-2.25", "1e2", "1E+2", "1e-2", "0.30000000000000004", "1.7976931348623157e308",
            "5e-324", "2.2250738585072014e-308", "123456.789e3", "9007199254740993.0", "0.000001234",
            "3.141592653589793238462643383279", "1e22", "1e23", "4.35", "-0.0",
        ]
        for text in texts {
            let parsed = try JSON(string: text)
            #expect(parsed.double == Double(text), "\(text)")
        }
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<5000 {
            let mantissa = generator.next() % 10_000_000_000_000
            let fraction = Int(generator.next() % 18)
            let exponent = Int(generator.next() % 60) - 30
            var text = String(mantissa)
            if fraction > 0, fraction < text.count {
                text.insert(".", at: text.index(text.endIndex, offsetBy: -fraction))
            }
            text += "e\(exponent)"
            #expect(try JSON(string: text).double == Double(text), "\(text)")
        }
    }

    @Test func stringsDecodeEscapesAndUnicode() throws {
        let text = #""q\" b\\ s\/ \b\f\n\r\t \u00e9 \u20AC \uD83D\uDE00 é€😀 \u0000""#
        #expect(try JSON(string: text) == .string("q\" b\\ s/ \u{8}\u{c}\n\r\t é € 😀 é€😀 \u{0}"))
        #expect(try JSON(string: #""\u2028\u2029""#) == .string("\u{2028}\u{2029}"))
        #expect(try JSON(data: Data([0x22, 0xF4, 0x8F, 0xBF, 0xBF, 0x22])) == .string("\u{10FFFF}"))
        #expect(try JSON(string: #"{"ключ": "значение"}"#)["ключ"] == "значение")
    }

    @Test func duplicateKeysKeepTheLastValueAtTheFirstPosition() throws {
        let json = try JSON(string: #"{"a": 1, "b": 2, "a": 3}"#)
        #expect(json.object?.keys == ["a", "b"])
        #expect(json["a"] == 3)
        let many = (0..<30).map { #""k\#($0)": \#($0)"# }.joined(separator: ",")
        let large = try JSON(string: "{\(many), \"k3\": \"again\", \"k29\": null}")
        #expect(large.object?.count == 30)
        #expect(large["k3"] == "again")
        #expect(large.value(forKey: "k29") == .null)
        #expect(large.object?.keys.first == "k0")
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let deep = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(try JSON(string: deep).array != nil)
        let options = JSON.ParsingOptions(maxDepth: 2)
        #expect(try JSON(string: "[[1]]", options: options) == [[1]])
        #expect(try JSON(string: #"{"a": {"b": 1}}"#, options: options)["a"]["b"] == 1)
    }

    // MARK: - Bad input: every error with its exact position

    private func failure(_ text: String, options: JSON.ParsingOptions = .default) -> JSONError? {
        failure(bytes: Array(text.utf8), options: options)
    }

    private func failure(bytes: [UInt8], options: JSON.ParsingOptions = .default) -> JSONError? {
        do {
            _ = try JSON(bytes: bytes, options: options)
            return nil
        } catch {
            return error as? JSONError
        }
    }

    private func expectError(
        _ text: String,
        _ reason: JSONError.Reason,
        offset: Int,
        line: Int = 1,
        column: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = failure(text)
        #expect(error?.reason == reason, "\(text)", sourceLocation: sourceLocation)
        #expect(error?.offset == offset, "\(text)", sourceLocation: sourceLocation)
        #expect(error?.line == line, "\(text)", sourceLocation: sourceLocation)
        #expect(error?.column == (column ?? offset + 1), "\(text)", sourceLocation: sourceLocation)
    }

    @Test func truncatedDocuments() {
        expectError("", .unexpectedEnd(expected: "a value"), offset: 0)
        expectError("   ", .unexpectedEnd(expected: "a value"), offset: 3)
        expectError(#"{"a": [1, 2"#, .unexpectedEnd(expected: "',' or ']'"), offset: 11)
        expectError(#"{"a": 1"#, .unexpectedEnd(expected: "',' or '}'"), offset: 7)
        expectError(#"{"a""#, .unexpectedEnd(expected: "':'"), offset: 4)
        expectError(#"{"a":"#, .unexpectedEnd(expected: "a value"), offset: 5)
        expectError("{", .unexpectedEnd(expected: "a string key"), offset: 1)
        expectError(#""abc"#, .unexpectedEnd(expected: "'\"' to close the string"), offset: 4)
        expectError("tru", .unexpectedEnd(expected: "'true'"), offset: 3)
        expectError("-", .unexpectedEnd(expected: "a digit"), offset: 1)
        expectError("1.", .unexpectedEnd(expected: "a digit after '.'"), offset: 2)
        expectError("1e", .unexpectedEnd(expected: "a digit in the exponent"), offset: 2)
        expectError(#""\u12"#, .unexpectedEnd(expected: "a hex digit"), offset: 5)
        expectError(#""\"#, .unexpectedEnd(expected: "an escape"), offset: 2)
    }

    @Test func trailingCommas() {
        expectError("[1, 2,]", .trailingComma, offset: 5)
        expectError(#"{"a": 1,}"#, .trailingComma, offset: 7)
        expectError("{\n  \"a\": 1,\n}", .trailingComma, offset: 10, line: 2, column: 9)
    }

    @Test func unexpectedCharacters() {
        expectError("[1 2]", .unexpectedCharacter(expected: "',' or ']'"), offset: 3)
        expectError(#"{"a" 1}"#, .unexpectedCharacter(expected: "':'"), offset: 5)
        expectError("{a: 1}", .unexpectedCharacter(expected: "a string key"), offset: 1)
        expectError(#"{"a": 1 "b": 2}"#, .unexpectedCharacter(expected: "',' or '}'"), offset: 8)
        expectError("[,1]", .unexpectedCharacter(expected: "a value"), offset: 1)
        expectError("trux", .unexpectedCharacter(expected: "'true'"), offset: 3)
        expectError("[1.e5]", .unexpectedCharacter(expected: "a digit after '.'"), offset: 3)
        expectError("-a", .unexpectedCharacter(expected: "a digit"), offset: 1)
        expectError("1e+x", .unexpectedCharacter(expected: "a digit in the exponent"), offset: 3)
        expectError(#""\u12G4""#, .unexpectedCharacter(expected: "a hex digit"), offset: 5)
        expectError("'single'", .unexpectedCharacter(expected: "a value"), offset: 0)
        expectError("[\"é\", x]", .unexpectedCharacter(expected: "a value"), offset: 7, column: 7)
    }

    @Test func unescapedControlCharacters() {
        expectError("\"a\tb\"", .unescapedControlCharacter, offset: 2)
        expectError("[\"a\nb\"]", .unescapedControlCharacter, offset: 3)
        expectError("\"\\n\u{1}\"", .unescapedControlCharacter, offset: 3)
    }

    @Test func invalidUTF8() {
        let cases: [([UInt8], Int)] = [
            ([0x5B, 0x22, 0xFF, 0x22, 0x5D], 2),  // a byte that never appears in UTF-8
            ([0x22, 0xC0, 0xAF, 0x22], 1),  // overlong "/"
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // an encoded surrogate
            ([0x22, 0xE2, 0x82, 0x22], 1),  // truncated sequence
            ([0x22, 0x61, 0x80, 0x22], 2),  // lone continuation byte
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // above U+10FFFF
            ([0x22, 0x5C, 0x6E, 0xF8, 0x22], 3),  // after an escape
            ([0x22, 0xE2, 0x82], 1),  // cut by the end of input
        ]
        for (bytes, offset) in cases {
            let error = failure(bytes: bytes)
            #expect(error?.reason == .invalidUTF8, "\(bytes)")
            #expect(error?.offset == offset, "\(bytes)")
        }
        let outside = failure(bytes: [0x5B, 0xC3, 0xA9, 0x5D])
        #expect(outside?.reason == .unexpectedCharacter(expected: "a value"))
        #expect(outside?.offset == 1)
    }

    @Test func loneSurrogatesAndBadEscapes() {
        expectError(#""\uD800""#, .loneSurrogate, offset: 1)
        expectError(#""ab\uDC00""#, .loneSurrogate, offset: 3)
        expectError(#""\uD800\u0041""#, .loneSurrogate, offset: 1)
        expectError(#""\uD800x""#, .loneSurrogate, offset: 1)
        expectError(#""\uD83D\uD83D""#, .loneSurrogate, offset: 1)
        expectError(#""\x""#, .invalidEscape, offset: 1)
        expectError(#""ok\'""#, .invalidEscape, offset: 3)
    }

    @Test func leadingZeros() {
        expectError("012", .leadingZero, offset: 0)
        expectError("-01", .leadingZero, offset: 1)
        expectError("[00]", .leadingZero, offset: 1)
    }

    @Test func nonFiniteLiteralsAndHugeNumbers() {
        expectError("NaN", .nonFiniteLiteral, offset: 0)
        expectError("[Infinity]", .nonFiniteLiteral, offset: 1)
        expectError("-Infinity", .nonFiniteLiteral, offset: 0)
        expectError(#"{"x": 1e400}"#, .numberOutOfRange, offset: 6)
        expectError("-1e999", .numberOutOfRange, offset: 0)
    }

    @Test func garbageAfterTheValue() {
        expectError("{} x", .trailingGarbage, offset: 3)
        expectError("1 2", .trailingGarbage, offset: 2)
        expectError("nulls", .trailingGarbage, offset: 4)
        expectError("[1]]", .trailingGarbage, offset: 3)
        expectError("\"a\"\n\n  ,", .trailingGarbage, offset: 7, line: 3, column: 3)
    }

    @Test func nestingDeeperThanTheLimit() {
        let deep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        expectError(deep, .tooDeep(limit: 512), offset: 512)
        let objects = String(repeating: #"{"a":"#, count: 600)
        expectError(objects, .tooDeep(limit: 512), offset: 512 * 5)
        let error = failure("[[[1]]]", options: .init(maxDepth: 2))
        #expect(error?.reason == .tooDeep(limit: 2))
        #expect(error?.offset == 2)
        // A hostile document far deeper than any stack: refused, not a crash.
        let hostile = String(repeating: "[", count: 1_000_000)
        #expect(failure(hostile)?.reason == .tooDeep(limit: 512))
    }

    @Test func errorsDescribeThemselves() {
        let error = failure(#"{"a": [1, 2,]}"#)
        #expect(error?.description == "trailing comma at line 1, column 12 (byte 11)")
        #expect(error?.expected == "a value after ','")
        #expect(error?.errorDescription == error?.description)
        let reasons: [JSONError.Reason] = [
            .unexpectedEnd(expected: "x"), .unexpectedCharacter(expected: "x"), .trailingComma,
            .unescapedControlCharacter, .invalidUTF8, .invalidEscape, .loneSurrogate, .leadingZero,
            .nonFiniteLiteral, .numberOutOfRange, .trailingGarbage, .tooDeep(limit: 3),
            .nonFiniteNumber(path: "a"),
        ]
        let descriptions = Set(reasons.map { JSONError($0, offset: 0, line: 1, column: 1).description })
        let expectations = Set(reasons.map { JSONError($0, offset: 0, line: 1, column: 1).expected })
        #expect(descriptions.count == reasons.count)
        #expect(expectations.count == reasons.count - 1)  // the two "unexpected" reasons share "x"
    }
}

/// SplitMix64: a small, seeded, reproducible generator for property tests.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
