import Foundation
import Testing

@testable import CRUDKit

/// How `JSON.Number` chooses the case that keeps a number exactly, and how the cases compare.
@Suite struct ExactNumberValueTests {
    @Test func eachNumberGetsTheCaseThatKeepsIt() throws {
        #expect(JSON.Number("42") == .int(42))
        #expect(JSON.Number("9007199254740993.0").map { if case .int = $0 { true } else { false } } == true)
        #expect(JSON.Number("9007199254740993.0")?.int64Value == 9_007_199_254_740_993)
        for text in ["0.5", "0.1234567890123456", "0.30000000000000004", "-7.682636537801366e+17", "5e-324"] {
            let number = try #require(JSON.Number(text))
            #expect(number == .double(try #require(Double(text))), "\(text)")
        }
        for text in ["1234567890.123456789", "99999999999999999999", "18446744073709551615", "0.1234567890123457001"] {
            let number = try #require(JSON.Number(text))
            guard case .literal(let literal) = number else {
                Issue.record("\(text) should keep its text, is \(number)")
                continue
            }
            #expect(literal.text == text)
        }
    }

    @Test func textThatIsNoNumberIsRefused() {
        for text in ["", " 1", "1 ", "01", "1.", ".5", "abc", "1e400", "-", "NaN", "[1]", "1e5x"] {
            #expect(JSON.Number(text) == nil, "\(text)")
        }
    }

    @Test func literalsCompareByValue() throws {
        let a = try #require(JSON.Number("123456789012345678901.50"))
        let b = try #require(JSON.Number("1234567890123456789015e-1"))
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([JSON.number(a), JSON.number(b)]).count == 1)
        #expect(a != .double(1.2345678901234568e20))
        #expect(a != (try #require(JSON.Number("123456789012345678901.51"))))
        #expect(JSON.Number("99999999999999999999") != .double(1e20))
    }

    @Test func accessorsAndMappings() throws {
        let json = try JSON(string: #"{"big":18446744073709551615,"amount":1234567890.123456789,"small":-3}"#)
        #expect(json["big"].uint64 == .max)
        #expect(json["big"].int64 == nil)
        #expect(json["amount"].decimal == Decimal(string: "1234567890.123456789"))
        #expect(json["amount"].int == nil)
        #expect(json["small"].uint64 == nil)
        #expect(try json["big"].convert(UInt64.self) == .max)
        #expect(try json["amount"].convert(Decimal.self) == Decimal(string: "1234567890.123456789"))
        #expect(json["amount"].number?.exactly(Int.self) == nil)
        let amount = try #require(Decimal(string: "1234567890.123456789"))
        #expect(JSON(amount) == json["amount"])
        #expect(JSON.Number(exactly: UInt64.max) == json["big"].number)
    }

    @Test func nanDecimalIsRefusedWhenEncoding() {
        struct Price: Encodable { var value: Decimal }
        #expect(throws: EncodingError.self) { try JSONCoding.plain.encode(Price(value: .nan)) }
    }

    /// Thousands of generated numbers: writing a parsed number gives a text with the same value, and parsing that
    /// gives an equal number.
    @Test func generatedNumbersKeepTheirValue() throws {
        var generator = SeededGenerator(seed: 12)
        for _ in 0..<5000 {
            let digitCount = 1 + Int(generator.next() % 30)
            var digits = (0..<digitCount).map { _ in String(generator.next() % 10) }.joined()
            if digits.count > 1 { digits = String(generator.next() % 9 + 1) + digits.dropFirst() }
            let fraction = Int(generator.next() % UInt64(digitCount + 1))
            if fraction > 0, fraction < digits.count {
                digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -fraction))
            }
            let exponent = generator.next() % 3 == 0 ? "e\(Int(generator.next() % 80) - 40)" : ""
            let text = (generator.next() % 2 == 0 ? "-" : "") + digits + exponent
            let parsed = try JSON(string: text)
            let written = try parsed.jsonString()
            #expect(JSONDecimalDigits(written.utf8) == JSONDecimalDigits(text.utf8), "\(text) → \(written)")
            #expect(try JSON(string: written) == parsed, "\(text) → \(written)")
        }
    }
}
