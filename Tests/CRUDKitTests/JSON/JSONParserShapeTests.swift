import Foundation
import Testing

@testable import CRUDKitJSON

/// The parser's key paths (issue 24): in a large document (2 KB and more) the key of member *n* of an object is
/// first compared with the key of member *n* of the previous object at the same depth, and a member is searched for
/// among the earlier ones only when its key's filter bit (length, first and last byte) was seen in its object.
/// Each case is read in a short document and in a long one, and must give what the short one gives.
@Suite struct JSONParserShapeTests {
    /// `objects` (comma-separated) in an array alone, and after enough padding objects that the document is large.
    private static func documents(_ objects: String) -> [String] {
        let padding = (0..<80).map { #"{"pad":"padding value \#($0)","n":\#($0)}"# }.joined(separator: ",")
        return ["[\(objects)]", "[\(padding),\(objects)]"]
    }

    /// The objects after the padding, as members (key and value).
    private static func parsed(_ objects: String) throws -> [[[(key: String, value: JSON)]]] {
        try zip(documents(objects), [0, 80]).map { document, padding in
            let array = try #require(try JSON(string: document).array)
            return try array.dropFirst(padding).map { try #require($0.object).members }
        }
    }

    private static func expectMembers(_ objects: String, _ expected: [[(String, JSON)]]) throws {
        for (document, members) in zip(["short", "large"], try parsed(objects)) {
            #expect(members.map { $0.map(\.key) } == expected.map { $0.map(\.0) }, "\(document): \(objects)")
            #expect(members.map { $0.map(\.value) } == expected.map { $0.map(\.1) }, "\(document): \(objects)")
        }
    }

    @Test func aKeyThatSharesAPrefixWithThePreviousObjectsKeyIsReadWhole() throws {
        try Self.expectMembers(
            #"{"ab":1,"x":0},{"abc":2,"x":0},{"a":3,"x":0},{"ab":4,"xy":0},{"":5,"x":0},{"ab":6,"x":0}"#,
            [
                [("ab", 1), ("x", 0)], [("abc", 2), ("x", 0)], [("a", 3), ("x", 0)], [("ab", 4), ("xy", 0)],
                [("", 5), ("x", 0)], [("ab", 6), ("x", 0)],
            ])
    }

    @Test func keysThatDifferOnlyInEscapesAreTheSameKey() throws {
        try Self.expectMembers(
            #"{"ab":1},{"a\u0062":2},{"ab":3},{"\u0061b":4,"ab":5},{"a\"b":6},{"a\\b":7},{"a\"b":8}"#,
            [[("ab", 1)], [("ab", 2)], [("ab", 3)], [("ab", 5)], [("a\"b", 6)], [("a\\b", 7)], [("a\"b", 8)]])
    }

    @Test func nonASCIIKeysArePredictedAndCompared() throws {
        try Self.expectMembers(
            #"{"é":1,"Zürich":2},{"é":3,"Zürich":4},{"\u00e9":5,"Zurich":6},{"e":7,"Zürich":8},{"é":9,"Zürič":10}"#,
            [
                [("é", 1), ("Zürich", 2)], [("é", 3), ("Zürich", 4)], [("é", 5), ("Zurich", 6)],
                [("e", 7), ("Zürich", 8)], [("é", 9), ("Zürič", 10)],
            ])
    }

    @Test func predictionsStayAtTheirDepth() throws {
        try Self.expectMembers(
            #"{"a":{"b":1,"c":2}},{"b":{"a":3,"c":4}},{"a":{"a":5,"b":6}},{"a":{"b":{"b":7}}}"#,
            [
                [("a", ["b": 1, "c": 2])], [("b", ["a": 3, "c": 4])], [("a", ["a": 5, "b": 6])],
                [("a", ["b": ["b": 7]])],
            ])
    }

    @Test func repeatedKeysKeepTheLastValueAtTheFirstPositionWhereverThePredictionFalls() throws {
        // The second member of the second object repeats the first one, where the first object had another key;
        // in the third, where the first object had the same key.
        try Self.expectMembers(
            #"{"a":1,"b":2},{"a":3,"a":4},{"a":5,"b":6,"a":7},{"a":8,"a":9,"a":10}"#,
            [[("a", 1), ("b", 2)], [("a", 4)], [("a", 7), ("b", 6)], [("a", 10)]])
    }

    @Test func keysWithTheSameFilterBitAreNotTakenForRepeats() throws {
        // Same length, first and last byte: the same filter bit, so each is compared with the earlier ones.
        let keys = (0..<10).map { "a\($0)z" }
        let object = "{" + keys.enumerated().map { #""\#($1)":\#($0)"# }.joined(separator: ",") + "}"
        let expected = keys.enumerated().map { ($1, JSON($0)) }
        try Self.expectMembers([object, object].joined(separator: ","), [expected, expected])
    }

    @Test func repeatsAreFoundInSmallAndLargeObjectsAcrossTheThreshold() throws {
        for count in [1, 2, 15, 16, 17, 40, 70] {
            // Every key once, then every key again with new values, then the first key a third time.
            let keys = (0..<count).map { "key\($0)" }
            var members = keys.enumerated().map { #""\#($1)":\#($0)"# }
            members += keys.enumerated().map { #""\#($1)":\#($0 + 100)"# }
            members.append(#""key\u0030":-1"#)
            let object = "{" + members.joined(separator: ",") + "}"
            var expected = keys.enumerated().map { ($1, JSON($0 + 100)) }
            expected[0].1 = -1
            try Self.expectMembers([object, object].joined(separator: ","), [expected, expected])
            for document in Self.documents(object) {
                let parsed = try #require(try JSON(string: document).array?.last?.object)
                for (position, key) in keys.enumerated() {
                    #expect(parsed.index(forKey: key) == position, "\(count) members")
                }
            }
        }
    }

    @Test func lookupBeforeAndAfterMutatingAParsedObject() throws {
        for count in [3, 16, 17] {
            let text = "{" + (0..<count).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
            for document in Self.documents("\(text),\(text)") {
                var object = try #require(try JSON(string: document).array?.last?.object)
                #expect(object["k1"] == JSON(1))
                #expect(object.index(forKey: "k\(count - 1)") == count - 1)
                object["k1"] = "one"
                object["new"] = true
                #expect(object.removeValue(forKey: "k0") == JSON(0))
                #expect(object["k1"] == "one")
                #expect(object.index(forKey: "k1") == 0)
                #expect(object.index(forKey: "new") == count - 1)
                #expect(object["k0"] == nil)
                #expect(object.count == count)
            }
        }
    }

    @Test func aDocumentThatEndsInsideAPredictedKeyFailsWhereItEnds() throws {
        let padding = (0..<80).map { #"{"abcdef":\#($0)}"# }.joined(separator: ",")
        for tail in [#"{"abc"#, #"{"abcdef"#, #"{"abcdef""#, #"{"abcdef" "#, #"{"abcdefg":1,"#, #"{"abcde\"#] {
            for prefix in ["[", "[\(padding),"] {
                let bytes = Array((prefix + tail).utf8)
                let error = try #require(throws: JSONError.self) { try JSON(bytes: bytes) }
                #expect(error.offset == bytes.count, "\(tail) after \(prefix.utf8.count) bytes")
            }
        }
        for tail in [#"{"abcdef"x"#, #"{"abcdef" 1"#] {
            let bytes = Array(("[\(padding)," + tail).utf8)
            let error = try #require(throws: JSONError.self) { try JSON(bytes: bytes) }
            #expect(error.reason == .unexpectedCharacter(expected: "':'"), "\(tail)")
            #expect(error.offset == bytes.count - 1, "\(tail)")
        }
    }
}
