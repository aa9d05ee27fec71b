import Foundation
import Testing

@testable import CRUDKitJSON

/// A number whose power of ten is 10¹⁸ or beyond compares by its value like any other: two spellings of one value
/// are equal and hash alike, whatever the fraction, the trailing zeros or the length of the written exponent. Before,
/// an exponent of more than 18 digits was compared as written, so `1e-1000000000000000000` and
/// `10e-1000000000000000001` (one value) differed, and so did spellings on either side of 18 digits.
@Suite struct HugeExponentSpellingTests {
    @Test(arguments: [
        ("1e-1000000000000000000", "10e-1000000000000000001"),
        ("1e-999999999999999999", "1000e-1000000000000000002"),
        ("1.5e-1000000000000000000", "15e-1000000000000000001"),
        ("0.001e-999999999999999998", "1e-1000000000000000001"),
        ("-2.50e-99999999999999999999", "-25e-100000000000000000000"),
        ("1e-1000000000000000000", "0.1e-999999999999999999"),
    ])
    func oneValueSpelledTwoWaysIsEqual(first: String, second: String) throws {
        let a = try JSON(string: first)
        let b = try JSON(string: second)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
    }

    @Test(arguments: [
        ("1e-1000000000000000000", "1e-1000000000000000001"),
        ("1e-999999999999999999", "1e-1000000000000000000"),
        ("1e-1000000000000000000", "-1e-1000000000000000000"),
        ("1.5e-1000000000000000000", "1.6e-1000000000000000000"),
    ])
    func differentValuesDiffer(first: String, second: String) throws {
        #expect(try JSON(string: first) != JSON(string: second))
    }

    @Test func hugeExponentsStayOutOfRange() throws {
        let tiny = try JSON(string: "10e-1000000000000000001")
        #expect(tiny.number?.exactly(Int64.self) == nil)
        #expect(tiny.number?.decimalValue == nil)
        #expect(tiny != 0)
    }
}
