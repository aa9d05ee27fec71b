import Foundation
import Testing

@testable import CRUDKit
@testable import CRUDKitJSON

/// Keyed decoding with snake_case conversion on looks each key up in constant time: the number of key
/// comparisons grows linearly with the number of members, not with its square (issue 12, item 10).
@Suite struct JSONKeyLookupTests {
    private static func document(keys: Int) -> JSON {
        var object = JSON.Object()
        for key in 0..<keys { object[String(key)] = JSON(key) }
        object["x_y"] = JSON(1)
        return .object(object)
    }

    /// The case from the issue: `[Int: Int]` over 20,000 integer keys and one `x_y`. Every integer key is looked
    /// up before `xY` is refused.
    @Test func intKeyedDictionaryWithSnakeCaseKeyIsLinear() {
        let keys = 20_000
        let decoder = JSONTreeDecoder(value: Self.document(keys: keys), coding: .default)
        #expect(throws: DecodingError.self) { try decoder.decodeRoot([Int: Int].self) }
        #expect(decoder.keyComparisons <= 2 * (keys + 1), "comparisons: \(decoder.keyComparisons)")
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { Int(stringValue) }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { stringValue = String(intValue) }
    }

    /// Walks `allKeys` and decodes every member, as `[Int: Int]` and hand-written containers do.
    private struct EveryKey: Decodable {
        var sum = 0
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            for key in container.allKeys { sum += try container.decode(Int.self, forKey: key) }
        }
    }

    @Test func containerWalkingAllKeysIsLinear() throws {
        let keys = 20_000
        let decoder = JSONTreeDecoder(value: Self.document(keys: keys), coding: .default)
        let decoded = try decoder.decodeRoot(EveryKey.self)
        #expect(decoded.sum == (0..<keys).reduce(0, +) + 1)
        #expect(decoder.keyComparisons <= 2 * (keys + 1), "comparisons: \(decoder.keyComparisons)")
    }
}
