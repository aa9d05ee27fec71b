import Foundation
import Testing

@testable import CRUDKit

/// Numbers that neither `Int64` nor `Double` hold exactly keep every digit: decoding gives what `JSONDecoder`
/// gives, and parsing then writing gives back the same text (issue 12, item 9).
@Suite struct ExactNumberTests {
    struct Box<Value: Codable & Equatable>: Codable, Equatable {
        var value: Value
    }

    /// A model read from a server, changed and sent back.
    struct Invoice: Codable, Equatable {
        var id: Int
        var amount: Decimal
        var counter: UInt64
        var note: String
    }

    /// Decodes `{"value": <text>}` with CRUDKit's decoder and with `JSONDecoder`: both must agree, value for value,
    /// and fail together.
    private static func expectSameAsFoundation<T: Codable & Equatable>(
        _ type: T.Type,
        _ text: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let data = Data(#"{"value":\#(text)}"#.utf8)
        let foundation = Result { try JSONDecoder().decode(Box<T>.self, from: data).value }
        let ours = Result { try JSONCoding.plain.decode(Box<T>.self, from: data).value }
        switch (foundation, ours) {
        case (.success(let expected), .success(let actual)):
            #expect(actual == expected, "\(T.self) from \(text)", sourceLocation: sourceLocation)
        case (.failure, .failure):
            break
        case (.success(let expected), .failure(let error)):
            Issue.record(
                "\(T.self) from \(text): JSONDecoder gives \(expected), CRUDKit throws \(error)",
                sourceLocation: sourceLocation)
        case (.failure(let error), .success(let actual)):
            Issue.record(
                "\(T.self) from \(text): JSONDecoder throws \(error), CRUDKit gives \(actual)",
                sourceLocation: sourceLocation)
        }
    }

    // MARK: - Decoding, compared with JSONDecoder

    @Test func decimalKeepsEveryDigit() throws {
        Self.expectSameAsFoundation(Decimal.self, "1234567890.123456789")
        Self.expectSameAsFoundation(Decimal.self, "99999999999999999999")
        Self.expectSameAsFoundation(Decimal.self, "-0.000000000000000000123456789")
        Self.expectSameAsFoundation(Decimal.self, "123456789012345678901234567890")
        let value = try JSONCoding.plain.decode(Box<Decimal>.self, from: Data(#"{"value":1234567890.123456789}"#.utf8))
        #expect(value.value == Decimal(string: "1234567890.123456789"))
        #expect(value.value.description == "1234567890.123456789")
    }

    @Test func unsignedIntegersAboveInt64() throws {
        Self.expectSameAsFoundation(UInt64.self, "9223372036854775809")
        Self.expectSameAsFoundation(UInt64.self, "18446744073709551615")
        Self.expectSameAsFoundation(UInt.self, "18446744073709551615")
        Self.expectSameAsFoundation(UInt64.self, "18446744073709551616")
        let decoded = try JSONCoding.plain.decode(Box<UInt64>.self, from: Data(#"{"value":18446744073709551615}"#.utf8))
        #expect(decoded.value == .max)
    }

    @Test func integersFromFractionNotationAreExactOrRefused() {
        Self.expectSameAsFoundation(Int64.self, "9007199254740993.0")
        Self.expectSameAsFoundation(Int.self, "9007199254740993.0")
        Self.expectSameAsFoundation(UInt64.self, "9007199254740993.0")
        Self.expectSameAsFoundation(Int64.self, "-9007199254740993.000")
        Self.expectSameAsFoundation(Int64.self, "9223372036854775808.0")
        Self.expectSameAsFoundation(Int8.self, "1.27e2")
        Self.expectSameAsFoundation(Int64.self, "1.5")
        // JSONDecoder refuses this one (through a double it is 2⁶³); its value is exactly `Int64.max`.
        let largest = Data(#"{"value":9223372036854775807.0}"#.utf8)
        #expect((try? JSONCoding.plain.decode(Box<Int64>.self, from: largest).value) == .max)
    }

    /// JSONDecoder truncates these (`…993.5` → `…993`); CRUDKit never rounds an integer: it refuses.
    @Test func integersWithAFractionAreRefusedNotTruncated() {
        let cases: [(String, (JSONCoding, Data) throws -> Void)] = [
            ("9007199254740993.5", { _ = try $0.decode(Box<Int64>.self, from: $1) }),
            ("2147483647.0000000000000000000001", { _ = try $0.decode(Box<Int32>.self, from: $1) }),
            ("18446744073709551615.5", { _ = try $0.decode(Box<UInt64>.self, from: $1) }),
            ("1.00000000000000000001", { _ = try $0.decode(Box<Int>.self, from: $1) }),
        ]
        for (text, decode) in cases {
            let data = Data(#"{"value":\#(text)}"#.utf8)
            #expect(throws: DecodingError.self, "\(text)") { try decode(.plain, data) }
        }
    }

    @Test func floatingPointFromLongNumbers() {
        for text in ["1234567890.123456789", "99999999999999999999", "9007199254740993.0", "0.30000000000000004"] {
            Self.expectSameAsFoundation(Double.self, text)
            Self.expectSameAsFoundation(Float.self, text)
        }
    }

    // MARK: - Writing back

    @Test func parsedNumbersAreWrittenBackAsTheyCame() throws {
        let texts = [
            "1234567890.123456789", "99999999999999999999", "9223372036854775809", "18446744073709551615",
            "-9223372036854775809", "123456789012345678901234567890.5",
            // Integers beyond Int64 ending in zeros stay integers: as `1.23e+23` a Python server reads a float.
            "123000000000000000000000", "100000000000000000000", "-10000000000000000000",
        ]
        for text in texts {
            let document = "[\(text)]"
            #expect(try JSON(string: document).jsonString() == document)
        }
    }

    @Test func encodesDecimalAndUInt64Exactly() throws {
        let invoice = Invoice(
            id: 7, amount: try #require(Decimal(string: "1234567890.123456789")), counter: .max, note: "n")
        let data = try JSONCoding.plain.encode(invoice)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("1234567890.123456789"), "\(text)")
        #expect(text.contains("18446744073709551615"), "\(text)")
        #expect(try JSONDecoder().decode(Invoice.self, from: data) == invoice)
    }

    /// An amount with more significant digits than `Decimal`'s 38, or beyond its range, is refused, never rounded:
    /// `JSONDecoder` reads `1.000000000000000000000000000000000000001` as `1`.
    @Test func decimalRefusesWhatItCannotHoldExactly() throws {
        let texts = [
            "1.000000000000000000000000000000000000001", "123456789012345678901234567890123456789012",
            "3.14159265358979323846264338327950288419716939937510", "1e-200",
            "1e-400", "1.5e300",
        ]
        for text in texts {
            #expect(throws: DecodingError.self, "\(text)") {
                try JSONCoding.plain.decode(Box<Decimal>.self, from: Data(#"{"value":\#(text)}"#.utf8))
            }
            let json = try JSON(string: text)
            #expect(json.decimal == nil, "\(text)")
            #expect(throws: JSONMappingError.self, "\(text)") { try json.convert(Decimal.self) }
        }
        // 38 significant digits, trailing zeros beyond them and small exponents are held exactly.
        let exact = [
            "12345678901234567890123456789012345678", "1.10000000000000000000000000000000000000000000", "1e-47",
            "0.00000000000000000000000000000000000000000000001", "1234567890.123456789",
        ]
        for text in exact {
            let decoded = try JSONCoding.plain.decode(Box<Decimal>.self, from: Data(#"{"value":\#(text)}"#.utf8))
            #expect(decoded.value == Decimal(string: text), "\(text)")
        }
    }

    /// Decimals and large unsigned integers are written in integer notation when they are integers: `100`, not
    /// `100.0`; `10000000000000000000`, not `1e+19`.
    @Test func integralDecimalsAndUnsignedIntegersAreWrittenAsIntegers() throws {
        let decimals = try ["100", "0", "120000000000000000000000", "-5"].map { try #require(Decimal(string: $0)) }
        #expect(
            String(decoding: try JSONCoding.plain.encode(decimals), as: UTF8.self)
                == "[100,0,120000000000000000000000,-5]")
        #expect(try JSON(data: JSONCoding.plain.encode(decimals)) == JSON(decimals))
        #expect(try JSON(decimals).jsonString() == "[100,0,120000000000000000000000,-5]")
        let counters: [UInt64] = [10_000_000_000_000_000_000, 18_000_000_000_000_000_000]
        #expect(
            String(decoding: try JSONCoding.plain.encode(counters), as: UTF8.self)
                == "[10000000000000000000,18000000000000000000]")
        #expect(try JSONCoding.plain.decode([UInt64].self, from: JSONCoding.plain.encode(counters)) == counters)
    }

    /// A non-zero number too small for the type is refused, as `JSONDecoder` refuses it, rather than read as zero.
    @Test func underflowIsRefusedNotReadAsZero() {
        for text in ["1e-400", "-2e-330"] {
            #expect(throws: DecodingError.self) {
                try JSONCoding.plain.decode(Box<Double>.self, from: Data(#"{"value":\#(text)}"#.utf8))
            }
        }
        for text in ["1e-50", "1e-46", "-1e-400"] {
            #expect(throws: DecodingError.self) {
                try JSONCoding.plain.decode(Box<Float>.self, from: Data(#"{"value":\#(text)}"#.utf8))
            }
            Self.expectSameAsFoundation(Float.self, text)
        }
        Self.expectSameAsFoundation(Float.self, "1e-45")
        Self.expectSameAsFoundation(Double.self, "4.9e-324")
        Self.expectSameAsFoundation(Double.self, "0e-400")
    }

    /// The largest `Float`s read back as Swift writes them (`3.4028235e+38`, a hair above the exact value, rounds to
    /// `Float.greatestFiniteMagnitude`): a model holding one could be saved but not read again. A number that rounds
    /// to infinity is still refused, as `JSONDecoder` refuses it.
    @Test func theLargestFloatsReadBackAsTheyAreWritten() throws {
        for value in [Float.greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude] {
            let written = try JSONCoding.plain.encode(Box(value: value))
            #expect(try JSONCoding.plain.decode(Box<Float>.self, from: written).value == value, "\(value)")
            #expect(try JSONDecoder().decode(Box<Float>.self, from: written).value == value)
        }
        for text in ["3.4028235e38", "-3.4028235e+38", "3.40282356e38"] {
            Self.expectSameAsFoundation(Float.self, text)
        }
        for text in ["3.4028236e38", "-3.5e38", "1e39"] {
            #expect(throws: DecodingError.self) {
                try JSONCoding.plain.decode(Box<Float>.self, from: Data(#"{"value":\#(text)}"#.utf8))
            }
            Self.expectSameAsFoundation(Float.self, text)
        }
    }

    @Test func readModifyWriteKeepsAmountAndCounter() throws {
        let original = #"{"id":7,"amount":1234567890.123456789,"counter":9223372036854775809,"note":"old"}"#
        var invoice = try JSONCoding.plain.decode(Invoice.self, from: Data(original.utf8))
        invoice.note = "new"
        let written = try JSONCoding.plain.encode(invoice)
        let expected = #"{"id":7,"amount":1234567890.123456789,"counter":9223372036854775809,"note":"new"}"#
        #expect(String(decoding: written, as: UTF8.self) == expected)
        let foundation = try JSONDecoder().decode(Invoice.self, from: Data(original.utf8))
        #expect(
            try JSONDecoder().decode(Invoice.self, from: written)
                == Invoice(
                    id: 7, amount: foundation.amount, counter: foundation.counter, note: "new"))
    }

    @Test func readModifyWriteThroughTheJSONTree() throws {
        let original = #"{"amount":99999999999999999999,"counter":18446744073709551615,"id":1,"note":"a"}"#
        var document = try JSON(string: original)
        document["note"] = "b"
        let written = try document.jsonString()
        #expect(written == #"{"amount":99999999999999999999,"counter":18446744073709551615,"id":1,"note":"b"}"#)
    }
}
