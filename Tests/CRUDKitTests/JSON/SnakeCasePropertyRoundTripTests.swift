// swift-format-ignore-file: AlwaysUseLowerCamelCase
// (The property names are the shapes under test.)
import Foundation
import Testing

@testable import CRUDKitJSON

/// Under ``JSONCoding/default`` (snake_case conversion) every property reads back what the encoder wrote for it,
/// whatever its name's shape (issue 39, item 2): a property named `user_name` read `nil`, and `first_name` threw
/// `keyNotFound`. `allKeys` names each key once (item 5).
@Suite struct SnakeCasePropertyRoundTripTests {
    struct Shapes: Codable, Equatable {
        var user_name: String?
        var first_name: String
        var userName: String
        var URL: Int
        var _private: Int
        var a__b: Int
        var value2: Int
        var address2Line: Int
        var __x_y__: Int
        var imageURL: String
    }

    private let shapes = Shapes(
        user_name: "u", first_name: "f", userName: "U", URL: 1, _private: 2, a__b: 3, value2: 4, address2Line: 5,
        __x_y__: 6, imageURL: "i")

    @Test func everyShapeReadsBackThroughBothEngines() throws {
        // `user_name` and `userName` both write `user_name`; give them one value so the round trip is defined.
        var model = shapes
        model.user_name = model.userName
        let data = try JSONCoding.default.encode(model)
        #expect(try JSONCoding.default.decode(Shapes.self, from: data) == model)
        #expect(try JSON(data: data).decode(Shapes.self) == model)
    }

    @Test func snakeCasePropertyReadsItsKey() throws {
        struct Person: Codable, Equatable {
            var first_name: String
            var user_name: String?
        }
        let person = Person(first_name: "Ada", user_name: "ada")
        let data = try JSONCoding.default.encode(person)
        #expect(try JSON(data: data) == ["first_name": "Ada", "user_name": "ada"])
        #expect(try JSONCoding.default.decode(Person.self, from: data) == person)
        // Plain `JSONDecoder` reads both too.
        #expect(try JSONDecoder().decode(Person.self, from: data) == person)
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private struct Keys: Decodable {
        var keys: [String]
        init(from decoder: any Decoder) throws {
            keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
        }
    }

    @Test func allKeysNamesEachKeyOnce() throws {
        let data = Data(#"{"user_id":1,"userId":2}"#.utf8)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode(Keys.self, from: data).keys == ["userId"])
        #expect(try JSONCoding.default.decode(Keys.self, from: data).keys == ["userId"])
    }

    @Test func allKeysListsASnakeCasePropertyByItsKey() throws {
        struct Person: Decodable {
            enum CodingKeys: String, CodingKey { case user_name, age }
            var keys: [String]
            init(from decoder: any Decoder) throws {
                keys = try decoder.container(keyedBy: CodingKeys.self).allKeys.map(\.stringValue)
            }
        }
        let data = Data(#"{"user_name":"a","age":3}"#.utf8)
        #expect(try JSONCoding.default.decode(Person.self, from: data).keys == ["user_name", "age"])
    }
}
