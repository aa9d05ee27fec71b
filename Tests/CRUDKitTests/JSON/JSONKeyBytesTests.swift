import Foundation
import Testing

@testable import CRUDKitJSON

/// Object keys are compared by their UTF-8 bytes (RFC 8259 §8.3), whatever the object's size: `"é"` (U+00E9) and
/// `"e\u{301}"` are two keys (issue 39, item 3). Before, `String` equality merged them in objects above 16 members,
/// kept them apart below, and `==` treated them as one key.
@Suite struct JSONKeyBytesTests {
    private static let composed = "\u{E9}"
    private static let decomposed = "e\u{301}"

    /// A document with both spellings and `filler` other members.
    private static func text(filler: Int) -> String {
        var members = [#""\#(composed)":1"#, #""\#(decomposed)":2"#]
        for index in 0..<filler { members.append(#""k\#(index)":\#(index)"#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    @Test(arguments: [0, 30])
    func bothSpellingsAreKeptWhateverTheSize(filler: Int) throws {
        let json = try JSON(string: Self.text(filler: filler))
        let object = try #require(json.object)
        #expect(object.count == filler + 2)
        #expect(object[Self.composed] == 1)
        #expect(object[Self.decomposed] == 2)
        #expect(json[Self.decomposed] == 2)
        // Written back with both.
        #expect(try JSON(data: json.data()) == json)
    }

    @Test(arguments: [0, 30])
    func objectsDifferingOnlyInNormalizationAreNotEqual(filler: Int) throws {
        var left = JSON.Object()
        var right = JSON.Object()
        for index in 0..<filler {
            left["k\(index)"] = JSON(index)
            right["k\(index)"] = JSON(index)
        }
        left[Self.composed] = 1
        right[Self.decomposed] = 1
        #expect(left != right)
        #expect(JSON.object(left) != JSON.object(right))
        #expect(left == left)
    }

    /// Canonically equivalent spellings of the same length (two combining marks in either order), short enough to be
    /// stored inline and long enough not to be: byte comparison cannot rest on the length or on `String`'s `==`.
    @Test(arguments: ["", "a_rather_long_prefix_"])
    func equivalentSpellingsOfOneLengthAreTwoKeys(prefix: String) throws {
        let first = prefix + "a\u{301}\u{316}"
        let second = prefix + "a\u{316}\u{301}"
        #expect(first == second && first.utf8.count == second.utf8.count)
        #expect(!JSONByteKey.sameBytes(first, second))
        #expect(JSONByteKey.sameBytes(first, String(decoding: Array(first.utf8), as: UTF8.self)))
        #expect(JSONByteKey(first) != JSONByteKey(second))
        for filler in [0, 30] {
            var members = [#""\#(first)":1"#, #""\#(second)":2"#]
            for index in 0..<filler { members.append(#""k\#(index)":\#(index)"#) }
            let json = try JSON(string: "{" + members.joined(separator: ",") + "}")
            #expect(json.object?.count == filler + 2)
            #expect(json[first] == 1)
            #expect(json[second] == 2)
        }
    }

    @Test func aDocumentEqualsItsSortedCopy() throws {
        let json = try JSON(string: Self.text(filler: 20))
        let sorted = try JSON(data: json.data(options: .sortedKeys))
        #expect(sorted == json)
        #expect(sorted.hashValue == json.hashValue)
    }

    @Test func aChangedNestedValueDiffsToTheChange() throws {
        let original: JSON = ["a": .object(JSON.Object([(Self.composed, JSON(1)), (Self.decomposed, JSON(2))]))]
        let edited: JSON = ["a": .object(JSON.Object([(Self.composed, JSON(1)), (Self.decomposed, JSON(3))]))]
        #expect(edited != original)
        #expect(edited.diff(from: original) == ["a": .object(JSON.Object([(Self.decomposed, JSON(3))]))])
        #expect(original.applyingMergePatch(edited.diff(from: original)) == edited)
    }

    @Test func snakeCaseDecodingKeepsTheSpellingsApart() throws {
        struct Model: Decodable {
            let first: Int
            let second: Int
            enum CodingKeys: String, CodingKey {
                case first = "x_\u{E9}"
                case second = "x_e\u{301}"
            }
        }
        let data = Data(#"{"x_\#(Self.composed)":1,"x_\#(Self.decomposed)":2}"#.utf8)
        let model = try JSONCoding.default.decode(Model.self, from: data)
        #expect(model.first == 1)
        #expect(model.second == 2)
    }
}
