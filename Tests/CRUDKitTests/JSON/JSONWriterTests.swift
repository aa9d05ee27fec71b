import Foundation
import Testing

@testable import CRUDKit

@Suite struct JSONWriterTests {
    let person: JSON = ["name": "Ada", "id": 9_007_199_254_740_993, "tags": ["a", 1.5], "empty": [:], "none": []]

    @Test func compactKeepsKeyOrder() throws {
        #expect(
            try person.jsonString() == #"{"name":"Ada","id":9007199254740993,"tags":["a",1.5],"empty":{},"none":[]}"#)
        #expect(try person.data() == Data(try person.bytes()))
    }

    @Test func prettyPrinted() throws {
        let expected = """
            {
              "name": "Ada",
              "id": 9007199254740993,
              "tags": [
                "a",
                1.5
              ],
              "empty": {},
              "none": []
            }
            """
        #expect(try person.jsonString(options: .prettyPrinted) == expected)
    }

    @Test func sortedKeysUseCodePointOrder() throws {
        let json: JSON = ["b": 1, "a": ["z": 1, "y": 2], "B": 0, "é": 3, "e": 4]
        #expect(try json.jsonString(options: .sortedKeys) == #"{"B":0,"a":{"y":2,"z":1},"b":1,"e":4,"é":3}"#)
        #expect(try json.jsonString(options: [.sortedKeys, .prettyPrinted]).hasPrefix("{\n  \"B\": 0,"))
    }

    @Test func escaping() throws {
        let text = "q\" b\\ / \u{8}\u{c}\n\r\t \u{0}\u{1f} \u{7f} é 😀 \u{2028}\u{2029}"
        let written = try JSON(text).jsonString()
        #expect(written == #""q\" b\\ / \b\f\n\r\t \u0000\u001f \#u{7f} é 😀 \u2028\u2029""#)
        #expect(try JSON(string: written) == JSON(text))
        #expect(try JSON(["k\n": "v"]).jsonString() == #"{"k\n":"v"}"#)
        #expect(try JSON("\u{e2}\u{20ac}").jsonString() == "\"\u{e2}\u{20ac}\"")
    }

    @Test func numbers() throws {
        let values: [JSON] = [
            0, -7, 9_223_372_036_854_775_807, -9_223_372_036_854_775_808, 1.0, -0.0, 0.1, 1e20,
            JSON(Double.leastNonzeroMagnitude),
        ]
        #expect(
            try JSON(values).jsonString() == "[0,-7,9223372036854775807,-9223372036854775808,1.0,-0.0,0.1,1e+20,5e-324]"
        )
    }

    @Test func nonFiniteNumbersAreRefusedWithTheirPath() {
        for value in [Double.nan, .infinity, -.infinity] {
            let document: JSON = ["results": [["age": 1], ["age": 2], ["age": 3], ["score": JSON(value)]]]
            #expect(throws: JSONError.writing(.nonFiniteNumber(path: "results[3].score"))) { try document.data() }
        }
        #expect(throws: JSONError.writing(.nonFiniteNumber(path: ""))) { try JSON(Double.nan).data() }
        #expect(throws: JSONError.writing(.nonFiniteNumber(path: "[1][0]"))) {
            try JSON.array([1, [JSON(Double.nan)]]).data()
        }
        let error = JSONError.writing(.nonFiniteNumber(path: "a.b"))
        #expect(error.description == "cannot write a non-finite number at `a.b`")
        #expect(error.offset == -1)
    }
}
