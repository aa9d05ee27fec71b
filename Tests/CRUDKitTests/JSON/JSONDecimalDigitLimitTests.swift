import Foundation
import Testing

@testable import CRUDKitJSON

/// A `Decimal` holds a mantissa of 128 bits: every number of 38 significant digits, and those of 39 digits up to
/// 2^128 − 1, decode exactly; one more digit's worth is refused rather than rounded.
@Suite struct JSONDecimalDigitLimitTests {
    @Test(arguments: [
        "99999999999999999999999999999999999999",  // 38 nines
        "340282366920938463463374607431768211455",  // 2^128 - 1, 39 digits
        "3.40282366920938463463374607431768211455",
        "-340282366920938463463374607431768211455",
    ])
    func numbersWhoseDigitsFitIn128BitsDecodeExactly(_ text: String) throws {
        let json = try JSON(string: text)
        let decimal = try #require(json.decimal)
        #expect(decimal == Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
        #expect(decimal.description == text)
    }

    @Test(arguments: [
        "340282366920938463463374607431768211456",  // 2^128
        "999999999999999999999999999999999999999",  // 39 nines
        "1.000000000000000000000000000000000000001",  // 40 digits
    ])
    func numbersWhoseDigitsDoNotFitIn128BitsAreRefused(_ text: String) throws {
        #expect(try JSON(string: text).decimal == nil)
    }
}
