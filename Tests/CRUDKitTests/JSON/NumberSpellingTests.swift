import Foundation
import Testing

@testable import CRUDKit

/// A number that an `Int64` or a `Double` holds exactly is one value however it is spelled: every spelling parses to
/// numbers that are `==` and hash alike, whichever case (`.int`, `.double`, `.literal`) the parser chose for each.
@Suite struct NumberSpellingTests {
    /// The exact decimal digits of `significand` × 2^`power` (`power` may be negative), as a plain decimal text.
    static func exactText(significand: UInt64, power: Int, negative: Bool) -> String {
        // Little-endian decimal digits.
        var digits = Array(String(significand).utf8.reversed()).map { Int($0) - 48 }
        func multiply(by factor: Int) {
            var carry = 0
            for index in digits.indices {
                let product = digits[index] * factor + carry
                digits[index] = product % 10
                carry = product / 10
            }
            while carry > 0 {
                digits.append(carry % 10)
                carry /= 10
            }
        }
        // By 2^30 or 5^13 at a time (no product overflows).
        let (base, step) = power >= 0 ? (2, 30) : (5, 13)
        var remaining = power.magnitude
        while remaining > 0 {
            let count = min(remaining, UInt(step))
            remaining -= count
            multiply(by: (0..<count).reduce(1) { product, _ in product * base })
        }
        let places = power < 0 ? -power : 0
        while digits.count <= places { digits.append(0) }
        var text = String(decoding: digits.reversed().map { UInt8($0 + 48) }, as: UTF8.self)
        if places > 0 { text.insert(".", at: text.index(text.endIndex, offsetBy: -places)) }
        return (negative ? "-" : "") + text
    }

    /// Other spellings of the plain decimal `text`: trailing zeros, an exponent moving the point both ways, `E`.
    static func respellings(of text: String) -> [String] {
        func exponent(_ value: Int) -> String { value >= 0 ? "e+\(value)" : "e\(value)" }
        let negative = text.hasPrefix("-")
        let body = negative ? String(text.dropFirst()) : text
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        let integer = String(parts[0])
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        let all = (integer + fraction).drop { $0 == "0" }
        let sign = negative ? "-" : ""
        guard !all.isEmpty else { return [text] }
        // all × 10^(-fraction.count)
        let scale = -fraction.count
        var spellings = [
            text,
            "\(sign)\(all)e\(scale)",
            "\(sign)\(all)0E\(scale - 1)",
            "\(sign)\(all.first!).\(all.dropFirst())\(exponent(scale + all.count - 1))",
            "\(sign)0.\(all)e\(scale + all.count)",
            fraction.isEmpty ? "\(sign)\(integer).000" : "\(text)000",
        ]
        if all.count == 1 { spellings[3] = "\(sign)\(all)\(exponent(scale))" }
        return spellings
    }

    /// Parses each spelling and checks that all are equal and hash alike.
    static func expectOneValue(_ spellings: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let numbers = try spellings.map { text -> JSON.Number in
            try #require(JSON.Number(text), "\(text) did not parse", sourceLocation: sourceLocation)
        }
        // Against the first, both ways (equality is transitive, so the others follow).
        let (first, firstText) = (numbers[0], spellings[0])
        for (number, text) in zip(numbers, spellings).dropFirst() {
            #expect(
                first == number && number == first, "\(firstText) (\(first)) != \(text) (\(number))",
                sourceLocation: sourceLocation)
            #expect(
                first.hashValue == number.hashValue, "\(firstText) and \(text) hash apart",
                sourceLocation: sourceLocation)
        }
        #expect(Set(numbers.map(JSON.number)).count == 1, "\(spellings)", sourceLocation: sourceLocation)
    }

    /// The issue's case: JavaScript writes `1e20` as `100000000000000000000`.
    @Test func theIssuesCase() throws {
        let literal = try #require(JSON.Number("100000000000000000000"))
        #expect(literal == .double(1e20))
        #expect(literal.hashValue == JSON.Number.double(1e20).hashValue)
        #expect(Set([JSON.number(literal), .number(.double(1e20))]).count == 1)
        try Self.expectOneValue(["100000000000000000000", "1e20", "1e+20", "1.0e20", "10e19", "0.1e21"])
    }

    /// The edges: `-0` and `0`, `Int64.min` and `Int64.max` in several spellings, 2^63 and 2^64 (beyond `Int64`,
    /// exact as doubles), the largest double written out in full, the smallest subnormal written out in full.
    @Test func edges() throws {
        try Self.expectOneValue(["0", "-0", "0.0", "-0.0", "0e5", "-0E-5"])
        try Self.expectOneValue(["-9223372036854775808", "-9.223372036854775808e18", "-9223372036854775808.000"])
        try Self.expectOneValue(["9223372036854775807", "9.223372036854775807e18", "92233720368547758070e-1"])
        #expect(JSON.Number("-9223372036854775808") == .double(-9_223_372_036_854_775_808.0))
        try Self.expectOneValue(["9223372036854775808", "9.223372036854775808e18", "9223372036854775808.0"])
        #expect(JSON.Number("9223372036854775808") == .double(9_223_372_036_854_775_808.0))
        #expect(JSON.Number("18446744073709551616") == .double(18_446_744_073_709_551_616.0))
        #expect(JSON.Number("18446744073709551615") != .double(18_446_744_073_709_551_616.0))
        let largest = Self.exactText(significand: (1 << 53) - 1, power: 971, negative: false)
        try Self.expectOneValue([largest, "\(Double.greatestFiniteMagnitude)"])
        let smallest = Self.exactText(significand: 1, power: -1074, negative: true)
        try Self.expectOneValue([smallest, "-5e-324", "-5.000e-324"])
        // 17 digits that are not the subnormal's value (it only rounds to it): a literal of another value.
        #expect(JSON.Number("-4.9406564584124654e-324") != .double(-Double.leastNonzeroMagnitude))
        // A value no double holds is no double's, however close.
        #expect(JSON.Number("0.1000000000000000055511151231257827021181583404541015624") != .double(0.1))
        #expect(JSON.Number("0.1000000000000000055511151231257827021181583404541015625") == .double(0.1))
        #expect(JSON.Number("1e400") == nil)
    }

    /// Random doubles (any bit pattern that is finite) written out exactly, and random `Int64`s, each in several
    /// spellings: one value each.
    @Test func anyTwoSpellingsOfOneValueAreEqualAndHashAlike() throws {
        var random = SeededGenerator(seed: 0x5BE1_1196)
        for _ in 0..<150 {
            var double = Double(bitPattern: random.next())
            while !double.isFinite { double = Double(bitPattern: random.next()) }
            let magnitude = double.magnitude
            var significand = magnitude.significandBitPattern
            var power = -1074
            if magnitude.exponentBitPattern != 0 {
                significand |= 1 << 52
                power = Int(magnitude.exponentBitPattern) - 1075
            }
            let exact = Self.exactText(significand: significand, power: power, negative: double < 0)
            try Self.expectOneValue(Self.respellings(of: exact) + ["\(double)"])
        }
        for _ in 0..<150 {
            let value = Int64(bitPattern: random.next()) >> (random.next() % 63)
            // A text of at most 17 significant digits that is a double's shortest form is read as that double (see
            // `JSON.Number`): `3.1379077251082214e+17` is the double 313790772510822144, not the integer
            // 313790772510822140, so such a value has spellings of two different values. The others have one.
            let significant = String(value.magnitude).reversed().drop { $0 == "0" }.count
            if Double(exactly: value) != nil || significant > 17 {
                try Self.expectOneValue(Self.respellings(of: String(value)))
            }
            // An integer a double holds exactly, beyond Int64: 2^k × an odd number of up to 53 bits.
            let big = Self.exactText(
                significand: random.next() >> 11 | 1, power: Int(random.next() % 900), negative: false)
            try Self.expectOneValue(Self.respellings(of: big))
        }
    }

    /// Parse, decode, encode, diff: a model whose amount the server wrote as JavaScript does (`1e20` as
    /// `100000000000000000000`) has no change to send.
    @Test func aParsedModelDiffsEmptyAgainstItself() throws {
        struct Payment: Codable { var id: Int; var amount: Double; var cents: Int64; var ratio: Double }
        let texts = [
            #"{"id": 1, "amount": 100000000000000000000, "cents": 9007199254740993, "ratio": 0.5}"#,
            #"{"id": 1, "amount": 1E+20, "cents": 9007199254740993.0, "ratio": 5e-1}"#,
            #"{"id": 1, "amount": 18446744073709551616, "cents": -9223372036854775808, "ratio": -0}"#,
        ]
        for text in texts {
            let parsed = try JSON(string: text)
            let model = try JSONCoding.default.decode(Payment.self, from: parsed)
            let encoded = try JSONCoding.default.encodeJSON(model)
            #expect(encoded.diff(from: parsed) == .object([:]), "\(text) → \(encoded.diff(from: parsed))")
        }
    }
}
