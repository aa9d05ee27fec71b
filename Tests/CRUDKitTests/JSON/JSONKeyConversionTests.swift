import Foundation
import Testing

@testable import CRUDKit

/// Our key conversion gives the same keys as Foundation's strategies, so both engines agree.
@Suite struct JSONKeyConversionTests {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private struct KeysSeen: Decodable {
        var keys: [String]
        init(from decoder: any Decoder) throws {
            keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
        }
    }

    private struct KeysWritten: Encodable {
        var keys: [String]
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            for key in keys { try container.encode(0, forKey: AnyKey(stringValue: key)) }
        }
    }

    @Test func snakeToCamelMatchesFoundation() throws {
        let keys = [
            "first_name", "_id", "__private_key__", "name_", "url", "a_b_c", "HTTP_status", "user_ID", "x__y",
            "already_camelCase", "_", "__", "", "über_größe", "with_2_numbers", "single", "ÉTAT_civil",
        ]
        let object = JSON.Object(keys.map { ($0, JSON(1)) })
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let foundation = try decoder.decode(KeysSeen.self, from: JSON(object).data()).keys
        let ours = keys.map(JSONKeyConversion.camelCase(fromSnakeCase:))
        #expect(Set(ours) == Set(foundation))
        #expect(JSONKeyConversion.camelCase(fromSnakeCase: "first_name") == "firstName")
        #expect(JSONKeyConversion.camelCase(fromSnakeCase: "_id") == "_id")
    }

    @Test func camelToSnakeMatchesFoundation() throws {
        let keys = [
            "firstName", "id", "URL", "myURLValue", "userID", "aBC", "ABc", "aBCd", "x", "X", "already_snake",
            "HTTPStatusCode", "value2Go", "éÉé", "camelCaseWithÜmlaut", "ThisIsPascal", "a1B2",
        ]
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let written = try JSON(data: encoder.encode(KeysWritten(keys: keys)))
        let foundation = Set((written.object ?? JSON.Object()).keys)
        let ours = Set(keys.map(JSONKeyConversion.snakeCase(fromCamelCase:)))
        #expect(ours == foundation)
        #expect(JSONKeyConversion.snakeCase(fromCamelCase: "myURLValue") == "my_url_value")
    }

    @Test func treeCodersUseTheConversion() throws {
        let json: JSON = ["HTTP_status": 1, "user_ID": 2]
        let seen = try JSONCoding.default.decode(KeysSeen.self, from: json)
        #expect(Set(seen.keys) == ["httpStatus", "userId"])
        let written = try JSONCoding.default.encodeJSON(KeysWritten(keys: ["myURLValue", "id"]))
        #expect((written.object ?? JSON.Object()).keys == ["my_url_value", "id"])
    }
}
