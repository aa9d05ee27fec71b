import Foundation
import Testing

@testable import CRUDKitJSON

/// The parser's fast paths (issue 24): strings scanned eight bytes at a step, and the keys and short values of a
/// large document (2 KB and more) shared with the earlier strings of the same bytes. Each case is checked in a short
/// document and in a long one, at every position of a string relative to the eight-byte steps.
@Suite struct JSONParserFastPathTests {
    /// `text` alone, and after enough other members that the document is large and strings are shared.
    private static func documents(_ member: String) -> [String] {
        let padding = (0..<60).map { #""pad\#($0)":"value \#($0 % 7)""# }.joined(separator: ",")
        return ["{\(member)}", "{\(padding),\(member)}"]
    }

    @Test func keysOfTheSameLengthAndEndsAreNotConfused() throws {
        // Keys that fall in the same slot of the table (same length, first and last byte) and differ inside.
        var objects: [String] = []
        for index in 0..<200 {
            objects.append(#"{"k\#(index % 10)\#(index % 7)z":"v\#(index % 10)\#(index % 3)w","kxyz":\#(index)}"#)
        }
        let json = try JSON(string: "[" + objects.joined(separator: ",") + "]")
        let array = try #require(json.array)
        #expect(array.count == 200)
        for (index, object) in array.enumerated() {
            let members = try #require(object.object).members
            #expect(members.map(\.key) == ["k\(index % 10)\(index % 7)z", "kxyz"])
            #expect(members[0].value == JSON("v\(index % 10)\(index % 3)w"))
            #expect(members[1].value == JSON(index))
        }
    }

    @Test func repeatedKeysInALargeDocumentKeepTheLastValueAtTheFirstPosition() throws {
        for document in Self.documents(#""a":1,"b":2,"a":3"#) {
            let object = try #require(try JSON(string: document).object)
            let tail = object.members.suffix(2)
            #expect(tail.map(\.key) == ["a", "b"], "\(document.utf8.count) bytes")
            #expect(object["a"] == JSON(3))
        }
    }

    @Test func aKeyWrittenWithEscapesRepeatsTheSameKeyWrittenPlainly() throws {
        for member in [#""a":1,"\u0061":2"#, #""\u0061":1,"a":2"#, #""é":1,"\u00e9":2"#, #""a\nb":1,"a\u000ab":2"#] {
            for document in Self.documents(member) {
                let object = try #require(try JSON(string: document).object)
                #expect(object.count == (document.utf8.count > 100 ? 61 : 1), "\(member)")
                #expect(object.members.last?.value == JSON(2), "\(member)")
            }
        }
    }

    @Test func escapesAndUnicodeAtEveryPositionOfAnEightByteStep() throws {
        let specials: [(written: String, read: String)] = [
            (#"\""#, "\""), (#"\\"#, "\\"), (#"\n"#, "\n"), (#"\u00e9"#, "é"), ("é", "é"), ("€", "€"), ("𝄞", "𝄞"),
            (#"\ud834\udd1e"#, "𝄞"),
        ]
        for position in 0..<17 {
            let before = String(repeating: "x", count: position)
            for special in specials {
                let written = before + special.written + "tail of the string"
                let expected = before + special.read + "tail of the string"
                for document in Self.documents(#""\#(written)":"\#(written)""#) {
                    let object = try #require(try JSON(string: document).object)
                    #expect(object[expected] == JSON(expected), "\(written) in \(document.utf8.count) bytes")
                }
            }
        }
    }

    @Test func controlCharactersAndBadUTF8AreRefusedWhereTheyAre() throws {
        for position in 0..<17 {
            let before = Array(repeating: UInt8(ascii: "x"), count: position)
            for document in Self.documents(#""k":"#) {
                var bytes = Array(document.utf8.dropLast())  // `{…"k":`
                let start = bytes.count + 1
                for bad: [UInt8] in [[0x09], [0x1F], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xFF], [0xE2, 0x82]] {
                    bytes = Array(document.utf8.dropLast()) + [UInt8(ascii: "\"")] + before + bad
                    bytes += Array("more text after it\"}".utf8)
                    let error = try #require(throws: JSONError.self) { try JSON(bytes: bytes) }
                    let reason: JSONError.Reason = bad[0] < 0x20 ? .unescapedControlCharacter : .invalidUTF8
                    #expect(error.reason == reason, "\(bad) after \(position) in \(bytes.count) bytes")
                    #expect(error.offset == start + position, "\(bad) after \(position) in \(bytes.count) bytes")
                }
            }
        }
    }

    @Test func anUnclosedStringEndsTheInputAtEveryLength() throws {
        for length in 0..<20 {
            for document in Self.documents(#""k":1"#) {
                let text = String(document.dropLast()) + #","s":""# + String(repeating: "y", count: length)
                let error = try #require(throws: JSONError.self) { try JSON(string: text) }
                #expect(error.reason == .unexpectedEnd(expected: "'\"' to close the string"))
                #expect(error.offset == text.utf8.count)
            }
        }
    }
}
