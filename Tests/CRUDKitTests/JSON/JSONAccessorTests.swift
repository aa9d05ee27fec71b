import Foundation
import Testing

@testable import CRUDKit

@Suite struct JSONAccessorTests {
    let json: JSON = [
        "data": ["people": [["first_name": "Ada", "age": 36], ["first_name": "Grace", "age": 85.0]]],
        "count": 2,
        "ratio": 0.5,
        "active": true,
        "nothing": nil,
        "big": 9_007_199_254_740_993,
        "a.b": "dotted",
    ]

    @Test func subscriptsNeverCrash() {
        #expect(json["data"]["people"][0]["first_name"].string == "Ada")
        #expect(json["data"]["people"][5]["first_name"] == .null)
        #expect(json["data"]["people"][-1] == .null)
        #expect(json["missing"]["deeper"][3] == .null)
        #expect(json["count"]["key"] == .null)
        #expect(json[0] == .null)
        #expect(JSON("text")[0] == .null)
    }

    @Test func optionalAccessors() {
        #expect(json["data"]["people"][1]["first_name"].string == "Grace")
        #expect(json["count"].int == 2)
        #expect(json["data"]["people"][1]["age"].int == 85)
        #expect(json["ratio"].int == nil)
        #expect(json["big"].int64 == 9_007_199_254_740_993)
        #expect(json["ratio"].double == 0.5)
        #expect(json["count"].double == 2)
        #expect(json["count"].number == .int(2))
        #expect(json["active"].bool == true)
        #expect(json["data"]["people"].array?.count == 2)
        #expect(json["data"].object?.keys == ["people"])
        #expect(json["data"].object?.dictionary.keys.first == "people")
        #expect(json["count"].string == nil)
        #expect(json["ratio"].bool == nil)
        #expect(json["active"].double == nil)
        #expect(json["active"].int64 == nil)
        #expect(json["count"].array == nil)
        #expect(json["count"].object == nil)
        #expect(json["count"].object?.dictionary == nil)
        #expect(json["active"].number == nil)
    }

    @Test func defaultsComeFromTheOptionalAccessors() {
        let missing = json["missing"]
        #expect((missing.string ?? "") == "")
        #expect((missing.int ?? 0) == 0)
        #expect((missing.int64 ?? 0) == 0)
        #expect((missing.double ?? 0) == 0)
        #expect((missing.bool ?? false) == false)
        #expect((missing.array ?? []).isEmpty)
        #expect((missing.object ?? JSON.Object()).isEmpty)
        let noMembers: [String: JSON] = missing.object?.dictionary ?? [:]
        #expect(noMembers.isEmpty)
        #expect((json["count"].int ?? 0) == 2)
        #expect((json["data"]["people"][0]["first_name"].string ?? "") == "Ada")
        #expect(json["active"].bool ?? false)
        #expect((json["ratio"].double ?? 0) == 0.5)
        #expect((json["big"].int64 ?? 0) == 9_007_199_254_740_993)
        #expect((json["data"]["people"].array ?? []).count == 2)
        #expect((json["data"].object ?? JSON.Object()).count == 1)
        let members: [String: JSON] = json["data"].object?.dictionary ?? [:]
        #expect(members.count == 1)
    }

    @Test func keyPaths() {
        #expect(json[path: "data.people"].array?.count == 2)
        #expect(json[path: ["data", "people"]].array?.count == 2)
        #expect(json[path: "data.people.1.first_name"] == "Grace")
        #expect(json[path: "data.people[1].first_name"] == "Grace")
        #expect(json[path: ["data", "people", "0", "age"]] == 36)
        #expect(json[path: "data.people[7].first_name"] == .null)
        #expect(json[path: "data.nobody"] == .null)
        #expect(json[path: ""] == json)
        #expect(json[path: ["a.b"]] == "dotted")
        #expect(json[path: "a.b"] == .null)
        #expect(json.value(atPath: "nothing") == .null)
        #expect(json.value(atPath: "absent") == nil)
        let numbered: JSON = ["7": "seven", "list": [[0, 1]]]
        #expect(numbered[path: "[7]"] == "seven")
        #expect(numbered[path: "list[0][1]"] == 1)
        #expect(numbered[path: "list.x"] == .null)
    }

    @Test func absentIsNotNull() throws {
        #expect(json.value(forKey: "nothing") == .null)
        #expect(json.value(forKey: "missing") == nil)
        #expect(json.value(forKey: "nothing") != nil)
        #expect(json.value(forKey: "missing") == nil)
        #expect(JSON(1).value(forKey: "x") == nil)
        #expect(try json.attribute("nothing", as: JSON.self) == .null)
        #expect(try json.attribute("missing", as: JSON.self) == .absent)
        #expect(try json.attribute("count", as: JSON.self) == .value(2))
        #expect(json["nothing"].isNull && json["missing"].isNull)
    }

    @Test func settingThroughSubscripts() {
        var value: JSON = nil
        value["name"] = "Ada"
        value["tags"] = ["a", "b"]
        value["tags"][1] = "c"
        value["tags"][9] = "ignored"
        value["name"] = "Grace"
        #expect(value == ["name": "Grace", "tags": ["a", "c"]])
        #expect(value.object?.keys == ["name", "tags"])
        var scalar: JSON = 3
        scalar["x"] = 1
        scalar[0] = 1
        #expect(scalar == 3)
    }
}
