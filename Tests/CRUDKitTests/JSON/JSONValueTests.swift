import Foundation
import Testing

@testable import CRUDKit

@Suite struct JSONValueTests {
    @Test func everyLiteralBuildsItsCase() {
        let null: JSON = nil
        let yes: JSON = true
        let integer: JSON = 42
        let double: JSON = 2.5
        let string: JSON = "Ada"
        let array: JSON = [1, "two", nil]
        let object: JSON = ["b": 1, "a": 2]
        #expect(null == .null)
        #expect(yes == .bool(true))
        #expect(integer == .number(.int(42)))
        #expect(double == .number(.double(2.5)))
        #expect(string == .string("Ada"))
        #expect(array == .array([.number(.int(1)), .string("two"), .null]))
        #expect(object.object?.keys == ["b", "a"])
        let members: JSON.Object = ["x": true]
        #expect(JSON(members)["x"] == true)
    }

    @Test func initializersFromSwiftValues() {
        #expect(JSON(7) == .number(.int(7)))
        #expect(JSON(Int64.max).int64 == Int64.max)
        #expect(JSON(0.5).double == 0.5)
        #expect(JSON("s").string == "s")
        #expect(JSON(false).bool == false)
        #expect(JSON([JSON(1), JSON(2)]).array?.count == 2)
        #expect(JSON(["k": JSON(1)])["k"] == 1)
    }

    @Test func numbersCompareByValueAcrossCases() {
        #expect(JSON.Number.int(1) == .double(1.0))
        #expect(JSON.Number.double(1.0) == .int(1))
        #expect(JSON.Number.int(1) != .double(1.5))
        #expect(JSON.Number.int(9_007_199_254_740_993) != .double(9_007_199_254_740_992))
        #expect(JSON.Number.int(0) == .double(-0.0))
        #expect(Set<JSON>([1, 1.0, 2]).count == 2)
        #expect(JSON(1).hashValue == JSON(1.0).hashValue)
    }

    @Test func numberViews() {
        #expect(JSON.Number.int(3).doubleValue == 3)
        #expect(JSON.Number.double(3).int64Value == 3)
        #expect(JSON.Number.double(3.5).int64Value == nil)
        #expect(JSON.Number.double(1e300).int64Value == nil)
        #expect(JSON.Number.int(-4).description == "-4")
        #expect(JSON.Number.double(.nan).description == "NaN")
        #expect(JSON.Number.double(-.infinity).description == "-Infinity")
    }

    @Test func objectsCompareWithoutRegardToOrder() {
        let one: JSON = ["a": 1, "b": [true, nil]]
        let two: JSON = ["b": [true, nil], "a": 1]
        #expect(one == two)
        #expect(one.hashValue == two.hashValue)
        #expect(one != ["a": 1])
        #expect(one != ["a": 1, "c": [true, nil]])
        #expect(JSON.null != false)
        #expect(JSON.array([]) != .object([:]))
    }

    @Test func objectsKeepOrderAndReplaceInPlace() {
        var object: JSON.Object = ["z": 1, "a": 2]
        object["m"] = 3
        object["z"] = 4
        #expect(object.keys == ["z", "a", "m"])
        #expect(object.values == [4, 2, 3])
        #expect(object.removeValue(forKey: "a") == 2)
        #expect(object.removeValue(forKey: "nope") == nil)
        #expect(object.keys == ["z", "m"])
        #expect(object.index(forKey: "m") == 1)
        #expect(Array(object).map(\.key) == ["z", "m"])
        #expect(object.dictionary == ["z": 4, "m": 3])
        #expect(!object.isEmpty)
        #expect(JSON.Object(["k": JSON(1)]).count == 1)
        #expect(JSON.Object([("a", JSON(1)), ("a", JSON(2))]).members.map(\.value) == [2])
    }

    @Test func largeObjectsStayConsistentAcrossTheIndexThreshold() {
        var object = JSON.Object()
        for number in 0..<40 { object["k\(number)"] = JSON(number) }
        #expect(object.count == 40)
        #expect(object["k33"] == 33)
        object["k5"] = nil
        #expect(object["k5"] == nil)
        #expect(object["k39"] == 39)
        #expect(object.index(forKey: "k6") == 5)
        for number in 0..<35 { object["k\(number)"] = nil }
        #expect(object.keys == ["k35", "k36", "k37", "k38", "k39"])
        #expect(object["k37"] == 37)
    }

    @Test func descriptionIsCompactJSON() {
        let json: JSON = ["name": "Ada \"L\"", "ids": [1, 2.5, nil, true]]
        #expect(json.description == #"{"name":"Ada \"L\"","ids":[1,2.5,null,true]}"#)
        #expect(json.debugDescription == "JSON(\(json.description))")
        #expect(JSON(Double.nan).description == "NaN")
        #expect("\(JSON(["x": JSON(Double.infinity)]))" == #"{"x":Infinity}"#)
    }

    @Test func kindDescriptionsNameTheValue() {
        #expect(JSON.null.kindDescription == "null")
        #expect(JSON(true).kindDescription == "a Boolean true")
        #expect(JSON(42).kindDescription == "a number 42")
        #expect(JSON("forty").kindDescription == #"a string "forty""#)
        #expect(JSON([1]).kindDescription == "an array of 1 element")
        #expect(JSON(["a": 1, "b": 2]).kindDescription == "an object with 2 members")
        #expect(JSON(String(repeating: "x", count: 50)).kindDescription.hasSuffix("…\""))
    }

    @Test func representableConversions() {
        #expect(JSON(Int32(5)) == 5)
        #expect(JSON(UInt(7)) == 7)
        #expect(JSON(UInt64.max).uint64 == .max)
        #expect(JSON(Float(0.5)) == 0.5)
        #expect(JSON(Optional<String>.none) == .null)
        #expect(JSON(["b": 1, "a": 2] as [String: Int]).object?.keys == ["a", "b"])
        #expect(JSON([1, 2] as [Int]) == [1, 2])
        #expect(URL(string: "https://x.dev/a").map { JSON($0) } == "https://x.dev/a")
        let uuid = UUID()
        #expect(JSON(uuid) == .string(uuid.uuidString))
        #expect(JSON(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(JSON(JSON.Object(["a": JSON(1)])) == ["a": 1])
    }
}
