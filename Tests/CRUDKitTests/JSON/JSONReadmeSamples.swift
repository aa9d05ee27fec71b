import Foundation
import Testing

@testable import CRUDKit

// The code of README's "Mapping" section, compiled and run here so the documentation cannot rot.
// Each sample sits in its own namespace because both define a `Person`.

enum CodableSample {
    struct Person: Codable {
        var id: Int?
        var firstName: String  // "first_name" on the wire
        var lastName: String
        var favoriteColor: String?
        var createdAt: Date  // "2024-05-01T12:30:00Z" or "2024-05-01T12:30:00.250Z"
    }

    static func readAndWrite(body: Data) throws -> (people: [Person], sent: Data) {
        let coding = JSONCoding.default  // snake_case keys, ISO-8601 dates
        let people = try coding.decode([Person].self, from: body, at: "results")  // DRF's {"count", "results": […]}
        let sent = try coding.encode(people[0])  // {"id":1,"first_name":"Ada",…}
        let json = try JSON(data: body)
        let first = try json.decode(Person.self, at: "results[0]")  // from a parsed value
        _ = try JSON(encoding: first)  // and back
        return (people, sent)
    }
}

enum HandSample {
    struct Person: JSONConvertible, JSONAttributable {
        var id: Int?
        var firstName: String
        var lastName: String
        var favoriteColor: String?

        init(json: JSON) throws {
            id = try json.optional("id")
            firstName = try json.required("first_name")  // throws "expected String at `results[3].first_name` …"
            lastName = try json.required("last_name")
            favoriteColor = try json.optional("favorite_color")
        }

        var attributes: JSONAttributes {
            [
                "id": .ifPresent(id),  // a new person has no id: the key is left out
                "first_name": .set(firstName),
                "last_name": .set(lastName),
                "favorite_color": .set(favoriteColor),  // nil is sent as null, clearing it
            ]
        }
    }

    static func readAndWrite(body: Data) throws -> (people: [Person], sent: Data, patch: JSON) {
        let json = try JSON(data: body)
        let people = try json.convert([Person].self, at: "results")
        var edited = people[0]
        edited.favoriteColor = "purple"
        let sent = try edited.jsonValue.data()  // {"id":1,"first_name":"Ada",…,"favorite_color":"purple"}
        let patch = edited.jsonValue.diff(from: people[0].jsonValue)  // {"favorite_color":"purple"}
        return (people, sent, patch)
    }

    static func access(body: Data) throws -> (String, Int?, Int) {
        let json = try JSON(data: body)
        let name = json["results"][0]["first_name"].string ?? ""  // "" if anything is missing
        let age = json[path: "results[0].age"].int  // nil if missing or not an integer
        let count = (json[path: "results"].array ?? []).count
        return (name, age, count)
    }
}

@Suite struct JSONReadmeSampleTests {
    @Test func bothStylesReadTheSameDocument() throws {
        let body = try JSONMappingTests.fixture("json-drf-people")
        let codable = try CodableSample.readAndWrite(body: body)
        let hand = try HandSample.readAndWrite(body: body)
        #expect(codable.people.map(\.firstName) == hand.people.map(\.firstName))
        #expect(codable.people.map(\.favoriteColor) == hand.people.map(\.favoriteColor))
        #expect(try JSON(data: codable.sent)["first_name"] == "Ada")
        #expect(try JSON(data: hand.sent)["favorite_color"] == "purple")
        #expect(hand.patch == ["favorite_color": "purple"])
        let access = try HandSample.access(body: body)
        #expect(access.0 == "Ada" && access.1 == 36 && access.2 == 4)
    }
}
