import Foundation
import Testing

@testable import CRUDKitJSON

/// A second nested container for the same key adds to the first, as `JSONEncoder` does: keyed containers merge
/// their members, unkeyed ones append (issue 39, item 1). Before, the second container replaced the first.
@Suite struct JSONNestedContainerMergeTests {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The JSON:API pattern: a resource writes `attributes`, a subclass adds to them.
    class Resource: Encodable {
        let type: String
        let name: String
        init(type: String, name: String) {
            self.type = type
            self.name = name
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(type, forKey: Key("type"))
            var attributes = container.nestedContainer(keyedBy: Key.self, forKey: Key("attributes"))
            try attributes.encode(name, forKey: Key("name"))
        }
    }

    final class UserResource: Resource {
        let email: String
        init(name: String, email: String) {
            self.email = email
            super.init(type: "users", name: name)
        }
        override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            var attributes = container.nestedContainer(keyedBy: Key.self, forKey: Key("attributes"))
            try attributes.encode(email, forKey: Key("email"))
        }
    }

    /// Nested keyed twice (two levels deep), unkeyed twice, and a value encoded before a nested container.
    private struct Shapes: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            var first = container.nestedContainer(keyedBy: Key.self, forKey: Key("a"))
            var firstInner = first.nestedContainer(keyedBy: Key.self, forKey: Key("b"))
            try firstInner.encode(1, forKey: Key("x"))
            var second = container.nestedContainer(keyedBy: Key.self, forKey: Key("a"))
            var secondInner = second.nestedContainer(keyedBy: Key.self, forKey: Key("b"))
            try secondInner.encode(2, forKey: Key("y"))
            var list = container.nestedUnkeyedContainer(forKey: Key("list"))
            try list.encode(1)
            var more = container.nestedUnkeyedContainer(forKey: Key("list"))
            try more.encode(2)
            try container.encode(["x": 1], forKey: Key("value"))
            var onValue = container.nestedContainer(keyedBy: Key.self, forKey: Key("value"))
            try onValue.encode("n", forKey: Key("name"))
            try container.encode([1], forKey: Key("values"))
            var onValues = container.nestedUnkeyedContainer(forKey: Key("values"))
            try onValues.encode(2)
        }
    }

    /// A super encoder for a key, then a nested container for it: `JSONEncoder` merges them.
    private struct SuperThenNested: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            do {
                // `JSONEncoder` stores a super encoder's value when the encoder is released.
                let superEncoder = container.superEncoder(forKey: Key("attributes"))
                var fromSuper = superEncoder.container(keyedBy: Key.self)
                try fromSuper.encode("e", forKey: Key("email"))
            }
            var nested = container.nestedContainer(keyedBy: Key.self, forKey: Key("attributes"))
            try nested.encode("n", forKey: Key("name"))
        }
    }

    /// What `JSONEncoder` writes for `value`, parsed.
    private func foundation(_ value: some Encodable) throws -> JSON {
        try JSON(data: JSONEncoder().encode(value))
    }

    @Test func subclassAddingToAttributesKeepsBothMembers() throws {
        let user = UserResource(name: "Ada", email: "ada@example.com")
        let expected: JSON = ["type": "users", "attributes": ["name": "Ada", "email": "ada@example.com"]]
        // The byte encoder (JSONCoding's default path) and the tree encoder.
        #expect(try JSON(data: JSONCoding.default.encode(user)) == expected)
        #expect(try JSON(encoding: user) == expected)
        #expect(try foundation(user) == expected)
    }

    @Test func nestedContainersMergeAndAppendAsJSONEncoderDoes() throws {
        let expected: JSON = [
            "a": ["b": ["x": 1, "y": 2]], "list": [1, 2], "value": ["x": 1, "name": "n"], "values": [1, 2],
        ]
        #expect(try foundation(Shapes()) == expected)
        #expect(try JSON(data: JSONCoding.default.encode(Shapes())) == expected)
        #expect(try JSON(encoding: Shapes(), coding: .plain) == expected)
    }

    @Test func nestedContainerAfterSuperEncoderForTheKeyAddsToIt() throws {
        let expected: JSON = ["attributes": ["email": "e", "name": "n"]]
        #expect(try foundation(SuperThenNested()) == expected)
        #expect(try JSON(data: JSONCoding.default.encode(SuperThenNested())) == expected)
        #expect(try JSON(encoding: SuperThenNested()) == expected)
    }

    /// Under snake_case conversion the key is merged by its written form, as `JSONEncoder` merges it.
    @Test func keysThatConvertToOneAreMerged() throws {
        struct Converted: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                var first = container.nestedContainer(keyedBy: Key.self, forKey: Key("userName"))
                try first.encode(1, forKey: Key("x"))
                var second = container.nestedContainer(keyedBy: Key.self, forKey: Key("user_name"))
                try second.encode(2, forKey: Key("y"))
            }
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let expected = try JSON(data: encoder.encode(Converted()))
        #expect(expected == ["user_name": ["x": 1, "y": 2]])
        #expect(try JSON(data: JSONCoding.default.encode(Converted())) == expected)
    }
}
