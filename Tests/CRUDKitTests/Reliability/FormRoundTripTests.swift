import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import Foundation
import Testing

/// Query and form encoding must parse back to the same fields, byte for byte: the properties the encoding fuzzer
/// (`Fuzz/Encoding/`) checks on random input, pinned here on the inputs that once broke them.
@Suite struct FormRoundTripTests {
    private static func scalars(_ pairs: [(name: String, value: String)]) -> [[UInt32]] {
        pairs.flatMap { [$0.name.unicodeScalars.map(\.value), $0.value.unicodeScalars.map(\.value)] }
    }

    /// Found by the fuzzer: Foundation's `removingPercentEncoding` drops a leading U+FEFF on Linux, so a value
    /// starting with a byte order mark came back without it.
    @Test(arguments: ["\u{FEFF}", "\u{FEFF}x", "a\u{FEFF}", "\u{FEFF}\u{FEFF}", "\u{FEFF}+%"])
    func byteOrderMarkSurvivesTheRoundTrip(text: String) {
        let parameters: FormParameters = [text: .string(text), "list": [.string(text)]]

        let decoded = FormParameters.decodePairs(parameters.percentEncoded())

        #expect(Self.scalars(decoded) == Self.scalars(parameters.flattened()))
    }

    @Test func everyByteClassSurvivesTheRoundTripInBothStyles() {
        let awkward = "a b+c&d=e%f[g]h?i#j\r\nk\"l\u{0}m\u{7F}né😀👩‍👩‍👧e\u{301}中"
        let parameters: FormParameters = [
            awkward: .string(awkward), "nested": ["in": [.string(awkward), ["deep": .string(awkward)]]],
        ]
        for style in [FormParameters.ArrayStyle.brackets, .repeatedKeys] {
            let decoded = FormParameters.decodePairs(parameters.percentEncoded(style: style))
            #expect(Self.scalars(decoded) == Self.scalars(parameters.flattened(style: style)))
        }
    }

    /// Text that is not our encoding (a hand-written query) decodes as far as it can and never crashes.
    @Test(arguments: [
        ("a=%zz+b", "%zz b"), ("a=%FF", "%FF"), ("a=%", "%"), ("a=%4", "%4"), ("a=%2b%2B", "++"),
        ("a=x+y%20z", "x y z"), ("a=%C3%A9", "é"), ("a=%ef%bb%bfx", "\u{FEFF}x"),
    ])
    func handWrittenEscapesDecodeAsFarAsTheyCan(text: String, value: String) {
        let decoded = FormParameters.decodePairs(text)

        #expect(decoded.count == 1)
        #expect(decoded.first?.name == "a")
        #expect(decoded.first.map { Array($0.value.unicodeScalars) } == Array(value.unicodeScalars))
    }
}
