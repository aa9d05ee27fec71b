import Foundation
import Testing

@testable import CRUDKit

@Suite struct JSONAttributeTests {
    struct Patch: Codable, Equatable {
        var name: JSONAttribute<String> = .absent
        var email: JSONAttribute<String> = .absent
        var age: JSONAttribute<Int> = .absent
    }

    @Test func states() {
        let absent = JSONAttribute<Int>.absent
        let null = JSONAttribute<Int>.null
        let value = JSONAttribute.value(3)
        #expect(absent.isAbsent && !absent.isNull && absent.wrappedValue == nil)
        #expect(null.isNull && !null.isAbsent && null.wrappedValue == nil)
        #expect(!value.isAbsent && !value.isNull && value.wrappedValue == 3)
        #expect(value.map { $0 * 2 } == .value(6))
        #expect(null.map { $0 * 2 } == .null)
        #expect(absent.map { $0 * 2 } == .absent)
        #expect(JSONAttribute<Int>(nil) == .null)
        #expect(JSONAttribute<Int>(5) == .value(5))
        #expect(JSONAttribute<Int>(ifPresent: nil) == .absent)
        #expect(JSONAttribute<Int>(ifPresent: 5) == .value(5))
        #expect(Set([absent, null, value, .value(3)]).count == 3)
    }

    @Test func codableTellsAbsentFromNull() throws {
        for coding in [JSONCoding.default, JSONCoding(engine: .foundation)] {
            let patch = try coding.decode(Patch.self, from: Data(#"{"email": null, "age": 3}"#.utf8))
            #expect(patch == Patch(name: .absent, email: .null, age: .value(3)))
            let json = try coding.encodeJSON(patch)
            #expect(json == ["email": nil, "age": 3])
            #expect(json.value(forKey: "name") == nil)
            #expect(throws: DecodingError.self) { try coding.decode(Patch.self, from: Data(#"{"age": "x"}"#.utf8)) }
        }
        #expect(try JSONCoding.default.encodeJSON(JSONAttribute<Int>.absent) == .null)
        #expect(try JSONCoding.default.encodeJSON([JSONAttribute<Int>.null, .value(1)]) == [nil, 1])
        #expect(
            try JSONCoding.default.decode([JSONAttribute<Int>].self, from: Data("[null, 2]".utf8)) == [
                .null, .value(2),
            ])
    }

    @Test func builders() {
        #expect(JSONAttribute.set("x") == .value("x"))
        #expect(JSONAttribute.set(String?.none) == .null)
        #expect(JSONAttribute.ifPresent(String?.none) == .absent)
        #expect(JSONAttribute.ifPresent(Optional(2)) == .value(2))
        #expect(JSONAttribute.from(JSONAttribute<String>.absent) == .absent)
        #expect(JSONAttribute.from(JSONAttribute<String>.null) == .null)
        #expect(JSONAttribute.from(JSONAttribute.value(1.5)) == .value(1.5))
    }

    @Test func handMappedAttributesLeaveAbsentKeysOut() throws {
        struct Household: JSONAttributable {
            var name: String
            var motto: String?
            var note: JSONAttribute<String>
            var members: [Member]
            var attributes: JSONAttributes {
                ["name": .set(name), "motto": .ifPresent(motto), "note": .from(note), "members": .set(members)]
            }
        }
        struct Member: JSONAttributable {
            var id: Int?
            var nickname: String?
            var attributes: JSONAttributes { ["id": .ifPresent(id), "nickname": .set(nickname)] }
        }
        let household = Household(
            name: "H", motto: nil, note: .null, members: [Member(id: nil, nickname: nil), Member(id: 2, nickname: "B")])
        let json = household.jsonValue
        #expect(
            try json.jsonString() == #"{"name":"H","note":null,"members":[{"nickname":null},{"id":2,"nickname":"B"}]}"#)
        let withNote = Household(name: "H", motto: "m", note: .value("n"), members: [])
        #expect(withNote.jsonValue == ["name": "H", "motto": "m", "note": "n", "members": []])
        let withoutNote = Household(name: "H", motto: nil, note: .absent, members: [])
        #expect(withoutNote.jsonValue.object?.keys == ["name", "members"])
    }

    @Test func readingATriStateFromJSON() throws {
        let json: JSON = ["a": nil, "b": "x", "c": 1]
        #expect(try json.attribute("a", as: String.self) == .null)
        #expect(try json.attribute("b", as: String.self) == .value("x"))
        #expect(try json.attribute("z", as: String.self) == .absent)
        #expect(throws: JSONMappingError(keyPath: "c", expected: "String", found: "a number 1")) {
            try json.attribute("c", as: String.self)
        }
        #expect(throws: JSONMappingError.self) { try JSON(1).attribute("c", as: String.self) }
    }
}
