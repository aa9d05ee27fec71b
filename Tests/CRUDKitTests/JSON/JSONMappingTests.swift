import Foundation
import Testing

@testable import CRUDKit
@testable import CRUDKitJSON

/// Both mapping styles on the same sample documents.
@Suite struct JSONMappingTests {
    struct CodablePerson: Codable, Equatable {
        var id: Int64
        var firstName: String
        var lastName: String
        var favoriteColor: String?
        var age: Int
        var createdAt: Date
    }

    struct HandPerson: JSONConvertible, JSONAttributable, Equatable {
        var id: Int64
        var firstName: String
        var lastName: String
        var favoriteColor: String?
        var age: Int
        var createdAt: Date

        init(json: JSON) throws {
            id = try json.required("id")
            firstName = try json.required("first_name")
            lastName = try json.required("last_name")
            favoriteColor = try json.optional("favorite_color")
            age = try json.required("age")
            createdAt = try json.required("created_at")
        }

        var attributes: JSONAttributes {
            [
                "id": .set(id), "first_name": .set(firstName), "last_name": .set(lastName),
                "favorite_color": .set(favoriteColor), "age": .set(age), "created_at": .set(createdAt),
            ]
        }

        var asCodable: CodablePerson {
            CodablePerson(
                id: id, firstName: firstName, lastName: lastName, favoriteColor: favoriteColor, age: age,
                createdAt: createdAt)
        }
    }

    struct Page<Item: Decodable>: Decodable {
        var count: Int
        var next: URL?
        var previous: URL?
        var results: [Item]
    }

    static func fixture(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
        return try Data(contentsOf: url)
    }

    @Test func drfPageBothWays() throws {
        let data = try Self.fixture("json-drf-people")
        let json = try JSON(data: data)
        let hand = try json.convert([HandPerson].self, at: "results")
        for engine in [JSONCoding.Engine.native, .foundation] {
            let coding = JSONCoding(engine: engine)
            let codable = try coding.decode([CodablePerson].self, from: data, at: "results")
            #expect(codable == hand.map(\.asCodable))
            let page = try coding.decode(Page<CodablePerson>.self, from: data)
            #expect(page.count == 4 && page.previous == nil)
            #expect(page.next?.absoluteString == "https://api.example.com/v1/people/?page=2")
            #expect(page.results == codable)
        }
        #expect(hand.count == 4)
        #expect(hand[2].id == 9_007_199_254_740_993)
        #expect(hand[1].favoriteColor == nil && hand[2].favoriteColor == nil)
        #expect(hand[1].createdAt.timeIntervalSince1970 == 1_714_566_600.25)
        #expect(hand[2].createdAt.timeIntervalSince1970 == 1_714_629_600.123456)
    }

    @Test func rootKeyAndKeyPathEnvelopes() throws {
        let person = try JSON(data: Self.fixture("json-person-envelope"))
        let hand = try person.convert(HandPerson.self, at: "person")
        let codable = try person.decode(CodablePerson.self, at: "person")
        #expect(hand.asCodable == codable)
        #expect(codable.id == 12)
        let people = try JSON(data: Self.fixture("json-data-people"))
        #expect(
            try people.convert([HandPerson].self, at: "data.people").map(\.asCodable)
                == people.decode([CodablePerson].self, at: "data.people"))
        #expect(try people.unwrap("data.people[1]")["first_name"] == "Grace")
        #expect(try people.unwrap("") == people)
    }

    @Test func missingEnvelopeKeysAreNamed() throws {
        let page = try JSON(data: Self.fixture("json-drf-people"))
        #expect(throws: JSONMappingError(keyPath: "person", expected: "a value", found: "nothing")) {
            try page.unwrap("person")
        }
        #expect(throws: JSONMappingError(keyPath: "results[9]", expected: "a value", found: "nothing")) {
            try page.convert([HandPerson].self, at: "results[9]")
        }
        #expect(throws: JSONMappingError(keyPath: "count.x", expected: "a value", found: "a number 4 around it")) {
            try page.decode(CodablePerson.self, at: "count.x")
        }
    }

    @Test func errorsNameTheKeyPathInBothStyles() throws {
        let data = try Self.fixture("json-drf-bad-age")
        let json = try JSON(data: data)
        let expected = JSONMappingError(keyPath: "results[3].age", expected: "Int", found: #"a string "forty""#)
        #expect(throws: expected) { try json.convert([HandPerson].self, at: "results") }
        #expect(throws: JSONMappingError(keyPath: "[3].age", expected: "Int", found: #"a string "forty""#)) {
            try json["results"].convert([HandPerson].self)
        }
        for engine in [JSONCoding.Engine.native, .foundation] {
            do {
                _ = try JSONCoding(engine: engine).decode([CodablePerson].self, from: data, at: "results")
                Issue.record("decoding should fail")
            } catch let error as DecodingError {
                #expect(JSONMappingError(error, in: json) == expected)
                #expect(JSONMappingError(error).keyPath == "results[3].age")
                #expect(JSONMappingError(error).found == "a string")
            }
        }
    }

    @Test func handMappingErrors() throws {
        let json: JSON = ["id": 1.5, "list": [1, "x"], "when": "yesterday", "name": nil, "site": "", "uuid": "nope"]
        #expect(throws: JSONMappingError(keyPath: "id", expected: "Int", found: "a number 1.5")) {
            try json.required("id", as: Int.self)
        }
        #expect(throws: JSONMappingError(keyPath: "list[1]", expected: "Int", found: #"a string "x""#)) {
            try json.required("list", as: [Int].self)
        }
        #expect(
            throws: JSONMappingError(keyPath: "when", expected: "an ISO-8601 date", found: #"a string "yesterday""#)
        ) {
            try json.required("when", as: Date.self)
        }
        #expect(throws: JSONMappingError(keyPath: "name", expected: "String", found: "null")) {
            try json.required("name", as: String.self)
        }
        #expect(throws: JSONMappingError(keyPath: "gone", expected: "String", found: "nothing")) {
            try json.required("gone", as: String.self)
        }
        #expect(throws: JSONMappingError(keyPath: "site", expected: "a URL", found: #"a string """#)) {
            try json.required("site", as: URL.self)
        }
        #expect(throws: JSONMappingError(keyPath: "uuid", expected: "a UUID", found: #"a string "nope""#)) {
            try json.required("uuid", as: UUID.self)
        }
        #expect(throws: JSONMappingError(keyPath: "", expected: "an object", found: "a number 3")) {
            try JSON(3).required("a", as: Int.self)
        }
        #expect(throws: JSONMappingError(keyPath: "", expected: "an object", found: "a number 3")) {
            try JSON(3).optional("a", as: Int.self)
        }
        #expect(throws: JSONMappingError(keyPath: "", expected: "an array", found: "null")) {
            try JSON.null.convert([Int].self)
        }
        #expect(throws: JSONMappingError.self) { try JSON(1).convert(Bool.self) }
        #expect(throws: JSONMappingError.self) { try JSON("1").convert(Double.self) }
        #expect(throws: JSONMappingError.self) { try JSON(1e30).convert(Int64.self) }
        #expect(try json.optional("name", as: String.self) == nil)
        #expect(try json.optional("gone", as: String.self) == nil)
        #expect(try JSON(85.0).convert(Int.self) == 85)
        #expect(try JSON.null.convert(Int?.self) == nil)
        #expect(try JSON([1]).convert(JSON.self) == [1])
        #expect(try JSON("https://a.b/c").convert(URL.self).host == "a.b")
        #expect(try JSON("2024-05-01T12:30:00+02:00").convert(Date.self).timeIntervalSince1970 == 1_714_559_400)
        let error = JSONMappingError(keyPath: "results[3].age", expected: "Int", found: "a string")
        #expect(error.description == "expected Int at `results[3].age` but found a string")
        #expect(error.errorDescription == error.description)
        #expect(
            JSONMappingError(keyPath: "", expected: "x", found: "y").description
                == "expected x at the document but found y")
    }

    @Test func handAttributesRoundTripThroughTheHandMapping() throws {
        let people = try JSON(data: Self.fixture("json-drf-people")).convert([HandPerson].self, at: "results")
        for person in people {
            var again = try HandPerson(json: JSON(data: person.jsonValue.data()))
            // Dates are written with millisecond precision.
            #expect(abs(again.createdAt.timeIntervalSince(person.createdAt)) < 0.0005)
            again.createdAt = person.createdAt
            #expect(again == person)
            #expect(person.jsonValue.object?.keys.first == "id")
        }
        #expect(people[1].jsonValue["favorite_color"] == .null)
        #expect(people[1].jsonValue.value(forKey: "favorite_color") != nil)
    }

    @Test func decodingErrorsConvertToTheTriple() {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        let document: JSON = ["results": [["first_name": "A"]]]
        let path: [any CodingKey] = [Key(stringValue: "results"), JSONCodingKey(index: 0)]
        let missing = DecodingError.keyNotFound(
            Key(stringValue: "lastName"), .init(codingPath: path, debugDescription: ""))
        #expect(
            JSONMappingError(missing, in: document)
                == JSONMappingError(keyPath: "results[0].last_name", expected: "a value", found: "nothing"))
        #expect(JSONMappingError(missing).keyPath == "results[0].lastName")
        let null = DecodingError.valueNotFound(
            String.self, .init(codingPath: path + [Key(stringValue: "firstName")], debugDescription: ""))
        #expect(
            JSONMappingError(null, in: document)
                == JSONMappingError(keyPath: "results[0].first_name", expected: "String", found: "null"))
        let corrupted = DecodingError.dataCorrupted(
            .init(codingPath: path + [Key(stringValue: "firstName")], debugDescription: "Bad date."))
        #expect(
            JSONMappingError(corrupted, in: document)
                == JSONMappingError(keyPath: "results[0].first_name", expected: "Bad date.", found: #"a string "A""#))
        #expect(JSONMappingError(corrupted).found == "Bad date.")
    }
}
