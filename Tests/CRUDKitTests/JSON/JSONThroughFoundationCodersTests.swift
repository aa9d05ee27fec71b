import Foundation
import Testing

@testable import CRUDKitJSON

/// `JSON` through Foundation's coders keeps every digit: numbers are decoded through the widest exact type
/// `JSONDecoder` offers, and what `JSONEncoder` cannot write exactly is refused, never written as `NaN`
/// (issue 39, item 6).
@Suite struct JSONThroughFoundationCodersTests {
    private struct Box: Codable {
        var value: JSON
    }

    private func throughFoundation(_ text: String) throws -> JSON {
        try JSONDecoder().decode(Box.self, from: Data(#"{"value":\#(text)}"#.utf8)).value
    }

    @Test(arguments: [
        "18446744073709551615", "1234567890.123456789", "-9223372036854775808", "9007199254740993", "0.1",
        "0.30000000000000004", "1e20", "-0.5", "123456789012345678901234567890", "2.5e-3",
    ])
    func decodingKeepsEveryDigit(text: String) throws {
        let decoded = try throughFoundation(text)
        #expect(decoded == (try JSON(string: text)), "\(text) → \(decoded)")
    }

    @Test func decodingKeepsValuesNotOnlyNumbers() throws {
        let text = #"{"a":[1,true,null,"s",{"b":2.5}],"c":18446744073709551615}"#
        #expect(try throughFoundation(text) == (try JSON(string: text)))
    }

    @Test(arguments: ["18446744073709551615", "1234567890.123456789", "-9223372036854775808", "0.1", "1e-7"])
    func encodingWritesEveryDigit(text: String) throws {
        let json = try JSON(string: text)
        let data = try JSONEncoder().encode(Box(value: json))
        #expect(try JSON(data: data)["value"] == json, "\(text) → \(String(decoding: data, as: UTF8.self))")
    }

    @Test(arguments: ["1e-400", "1.000000000000000000000000000000000000000001"])
    func encodingRefusesWhatFoundationCannotWrite(text: String) throws {
        let json = try JSON(string: text)
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Box(value: json)) }
    }

    @Test func encodingRefusesNonFiniteDoubles() {
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Box(value: JSON(Double.nan))) }
    }
}
