import Foundation
import Testing

@testable import CRUDKit

@Suite struct JSONCodingTests {
    struct Person: Codable, Equatable {
        var id: Int
        var firstName: String
        var favoriteColor: String?
        var createdAt: Date
        var homePage: URL?
        var avatar: Data?
        var balance: Decimal?
        var ratio: Float?
        var small: Int8?
        var scores: [String: Int]?
        var meta: JSON?
        var kind: Kind?
    }

    enum Kind: String, Codable { case admin, member }

    let engines: [JSONCoding.Engine] = [.native, .foundation]

    @Test func snakeCaseAndDatesByDefault() throws {
        let body = #"""
            {"id": 1, "first_name": "Ada", "created_at": "2024-05-01T12:30:00.250Z", "home_page": "https://ada.dev",
             "avatar": "AQID", "balance": 12.5, "ratio": 0.5, "small": -8, "scores": {"math_score": 3},
             "meta": {"some_key": [1, {"inner_key": null}]}, "kind": "admin"}
            """#
        for engine in engines {
            let coding = JSONCoding(engine: engine)
            let person = try coding.decode(Person.self, from: Data(body.utf8))
            #expect(person.firstName == "Ada")
            #expect(person.createdAt == Date(timeIntervalSince1970: 1_714_566_600.25))
            #expect(person.homePage?.host == "ada.dev")
            #expect(person.avatar == Data([1, 2, 3]))
            #expect(person.balance == Decimal(string: "12.5"))
            #expect(person.ratio == 0.5 && person.small == -8)
            #expect(person.scores == ["math_score": 3], "dictionary keys are not converted")
            #expect(person.meta == ["some_key": [1, ["inner_key": nil]]], "JSON keys are not converted")
            #expect(person.kind == .admin)
            let written = try JSON(data: coding.encode(person))
            #expect(written["first_name"] == "Ada")
            #expect(written["created_at"] == "2024-05-01T12:30:00.250Z")
            #expect(written["scores"] == ["math_score": 3])
            #expect(written["meta"]["some_key"][1].value(forKey: "inner_key") != nil)
            #expect(try coding.decode(Person.self, from: coding.encode(person)) == person)
        }
        let native = try JSONCoding.default.encodeJSON(
            Person(id: 1, firstName: "A", createdAt: Date(timeIntervalSince1970: 0)))
        #expect(native.object?.keys == ["id", "first_name", "created_at"], "declaration order, nils left out")
    }

    @Test func datesWithAndWithoutFractionsAndOffsets() throws {
        struct Stamp: Codable { var at: Date }
        let cases: [(String, Double)] = [
            ("2024-05-01T12:30:00Z", 1_714_566_600), ("2024-05-01T12:30:00.5Z", 1_714_566_600.5),
            ("2024-05-01T12:30:00.123456789Z", 1_714_566_600.123456789), ("2024-05-01T14:30:00+02:00", 1_714_566_600),
            ("2024-05-01T07:00:00-0530", 1_714_566_600), ("2024-05-01t12:30:00z", 1_714_566_600),
            ("2024-05-01T13:30:00+01", 1_714_566_600), ("1969-12-31T23:59:59Z", -1),
            ("2000-02-29T00:00:00Z", 951_782_400),
        ]
        for engine in engines {
            for (text, seconds) in cases {
                let stamp = try JSONCoding(engine: engine).decode(Stamp.self, from: Data(#"{"at": "\#(text)"}"#.utf8))
                #expect(abs(stamp.at.timeIntervalSince1970 - seconds) < 1e-6, "\(text)")
            }
            for bad in [
                "2024-05-01", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-05-01T12:30:00",
                "2024-05-01T24:00:00Z", "2024-05-01T12:30:00.Z", "2024-05-01T12:30:00Zjunk",
            ] {
                #expect(throws: DecodingError.self, "\(bad)") {
                    try JSONCoding(engine: engine).decode(Stamp.self, from: Data(#"{"at": "\#(bad)"}"#.utf8))
                }
            }
        }
        #expect(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: 1_714_566_600)) == "2024-05-01T12:30:00Z")
        #expect(
            ISO8601Timestamp.string(from: Date(timeIntervalSince1970: 1_714_566_600.25)) == "2024-05-01T12:30:00.250Z")
        #expect(
            ISO8601Timestamp.string(from: Date(timeIntervalSince1970: 1_714_566_600.9996))
                == "2024-05-01T12:30:00.999600Z")
        #expect(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        var generator = SeededGenerator(seed: 3)
        for _ in 0..<2000 {
            let milliseconds = Int64(bitPattern: generator.next() % 8_000_000_000_000) - 2_000_000_000_000
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = try #require(ISO8601Timestamp.string(from: date))
            let back = try #require(ISO8601Timestamp.date(from: text), "\(text)")
            #expect(abs(back.timeIntervalSince(date)) < 0.0005, "\(text)")
        }
    }

    @Test func otherDateCodings() throws {
        struct Stamp: Codable, Equatable { var at: Date }
        let date = Date(timeIntervalSince1970: 1_000_000)
        let expectations: [(JSONCoding.DateCoding, JSON)] = [
            (.secondsSince1970, 1_000_000), (.millisecondsSince1970, 1_000_000_000),
            (.deferredToDate, JSON(date.timeIntervalSinceReferenceDate)),
        ]
        for engine in engines {
            for (dates, expected) in expectations {
                let coding = JSONCoding(dates: dates, engine: engine)
                #expect(try coding.encodeJSON(Stamp(at: date))["at"] == expected)
                #expect(try coding.decode(Stamp.self, from: coding.encode(Stamp(at: date))) == Stamp(at: date))
            }
        }
    }

    @Test func plainSwitchesBothOff() throws {
        struct Model: Codable, Equatable { var firstName: String; var at: Date }
        let model = Model(firstName: "A", at: Date(timeIntervalSinceReferenceDate: 10))
        for engine in engines {
            var coding = JSONCoding.plain
            coding.engine = engine
            let json = try coding.encodeJSON(model)
            #expect(json == ["firstName": "A", "at": 10])
            #expect(try coding.decode(Model.self, from: json) == model)
            #expect(throws: DecodingError.self) {
                try coding.decode(Model.self, from: ["first_name": "A", "at": 10] as JSON)
            }
        }
    }

    @Test func bothEnginesThrowTheSameErrors() throws {
        struct Inner: Codable { var value: Int8 }
        struct Model: Codable { var name: String; var count: Int; var inner: Inner; var list: [Int]; var at: Date? }
        let documents = [
            #"{"name": 1, "count": 1, "inner": {"value": 1}, "list": []}"#,
            #"{"count": 1, "inner": {"value": 1}, "list": []}"#,
            #"{"name": null, "count": 1, "inner": {"value": 1}, "list": []}"#,
            #"{"name": "a", "count": 1.5, "inner": {"value": 1}, "list": []}"#,
            #"{"name": "a", "count": 1, "inner": {"value": 300}, "list": []}"#,
            #"{"name": "a", "count": 1, "inner": [], "list": []}"#,
            #"{"name": "a", "count": 1, "inner": {"value": 1}, "list": [1, "2"]}"#,
            #"{"name": "a", "count": 1, "inner": {"value": 1}, "list": [1, null]}"#,
            #"{"name": "a", "count": 1, "inner": {"value": 1}, "list": {}}"#,
            #"{"name": "a", "count": 1, "inner": {"value": 1}, "list": [], "at": "noon"}"#,
            #"[1, 2]"#,
        ]
        for document in documents {
            let data = Data(document.utf8)
            let errors = engines.map { engine -> DecodingError? in
                do {
                    _ = try JSONCoding(engine: engine).decode(Model.self, from: data)
                    return nil
                } catch {
                    return error as? DecodingError
                }
            }
            let summaries = errors.map { $0.map(summary) }
            #expect(summaries[0] != nil, "\(document)")
            if summaries[1] == "dataCorrupted " {
                // JSONDecoder leaves the coding path of an out-of-range number empty; ours names it.
                #expect(summaries[0]?.hasPrefix("dataCorrupted ") == true, "\(document)")
            } else {
                #expect(summaries[0] == summaries[1], "\(document)")
            }
            let json = try JSON(data: data)
            #expect(errors.compactMap { $0.map { JSONMappingError($0, in: json) } }.count == 2)
        }
    }

    private func summary(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: "/")
        }
        switch error {
        case .typeMismatch(let type, let context): return "typeMismatch \(type) \(path(context))"
        case .valueNotFound(let type, let context): return "valueNotFound \(type) \(path(context))"
        case .keyNotFound(let key, let context): return "keyNotFound \(key.stringValue) \(path(context))"
        case .dataCorrupted(let context): return "dataCorrupted \(path(context))"
        @unknown default: return "unknown"
        }
    }

    @Test func malformedBytesThrowJSONError() {
        #expect(throws: JSONError.self) { try JSONCoding.default.decode([Int].self, from: Data("[1,".utf8)) }
        #expect(throws: DecodingError.self) {
            try JSONCoding(engine: .foundation).decode([Int].self, from: Data("[1,".utf8))
        }
    }

    @Test func valuesAndModelsConvertBothWays() throws {
        struct Model: Codable, Equatable { var firstName: String; var tags: [String]; var nested: [[Int]] }
        let model = Model(firstName: "Ada", tags: ["a"], nested: [[1], []])
        let json = try JSON(encoding: model)
        #expect(json == ["first_name": "Ada", "tags": ["a"], "nested": [[1], []]])
        #expect(try json.decode(Model.self) == model)
        #expect(try JSON(encoding: model, coding: .plain)["firstName"] == "Ada")
        #expect(try JSONCoding(engine: .foundation).encodeJSON(model) == json)
        #expect(try JSON(encoding: 5) == 5)
        #expect(try JSON(encoding: [String: Int]()) == [:])
        struct Empty: Encodable {}
        #expect(try JSON(encoding: Empty()) == [:])
    }

    @Test func nonFiniteNumbersAreRefusedWhenEncoding() {
        struct Model: Codable { var score: Double; var ratio: Float }
        for engine in engines {
            #expect(throws: EncodingError.self) { try JSONCoding(engine: engine).encode(Model(score: .nan, ratio: 1)) }
            #expect(throws: EncodingError.self) {
                try JSONCoding(engine: engine).encode(Model(score: 1, ratio: .infinity))
            }
            #expect(throws: EncodingError.self) { try JSONCoding(engine: engine).encode([Double.infinity]) }
        }
    }

    @Test func writingOptionsApply() throws {
        struct Model: Codable { var b: Int; var a: Int }
        for engine in engines {
            let coding = JSONCoding(writing: [.sortedKeys, .prettyPrinted], engine: engine)
            let text = String(decoding: try coding.encode(Model(b: 1, a: 2)), as: UTF8.self)
            #expect(text.hasPrefix("{\n  \"a\""), "\(text)")
        }
        #expect(String(decoding: try JSONCoding.default.encode(Model(b: 1, a: 2)), as: UTF8.self) == #"{"b":1,"a":2}"#)
    }

    @Test func jsonIsCodableThroughFoundation() throws {
        let json: JSON = ["a_b": [1, 2.5, "x", true, nil, ["k": "v"]]]
        let data = try JSONEncoder().encode(json)
        #expect(try JSONDecoder().decode(JSON.self, from: data) == json)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        #expect(try JSON(data: encoder.encode(["aB": json])) == ["aB": json])
        #expect(
            try JSONDecoder().decode(JSON.self, from: Data("9007199254740993".utf8))
                == .number(.int(9_007_199_254_740_993)))
    }

    @Test func customContainersAndSuperEncoders() throws {
        final class Base: Codable {
            var id = 1
        }
        struct Custom: Codable, Equatable {
            var x: Int
            var pairs: [[String]]
            enum CodingKeys: String, CodingKey { case x, pairs, extra }
            enum Extra: String, CodingKey { case flag }
            init(x: Int, pairs: [[String]]) {
                self.x = x
                self.pairs = pairs
            }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                x = try container.decode(Int.self, forKey: .x)
                var list = try container.nestedUnkeyedContainer(forKey: .pairs)
                var pairs: [[String]] = []
                while !list.isAtEnd {
                    var inner = try list.nestedUnkeyedContainer()
                    pairs.append([try inner.decode(String.self), try inner.decode(String.self)])
                }
                self.pairs = pairs
                let extra = try container.nestedContainer(keyedBy: Extra.self, forKey: .extra)
                guard try extra.decode(Bool.self, forKey: .flag) else {
                    throw DecodingError.dataCorruptedError(forKey: .flag, in: extra, debugDescription: "flag")
                }
                _ = try Base(from: container.superDecoder())
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(x, forKey: .x)
                var list = container.nestedUnkeyedContainer(forKey: .pairs)
                for pair in pairs {
                    var inner = list.nestedUnkeyedContainer()
                    for item in pair { try inner.encode(item) }
                }
                var extra = container.nestedContainer(keyedBy: Extra.self, forKey: .extra)
                try extra.encode(true, forKey: .flag)
                try Base().encode(to: container.superEncoder())
            }
        }
        let value = Custom(x: 3, pairs: [["a", "b"], ["c", "d"]])
        for engine in engines {
            let coding = JSONCoding(engine: engine)
            let json = try coding.encodeJSON(value)
            #expect(
                json == ["x": 3, "pairs": [["a", "b"], ["c", "d"]], "extra": ["flag": true], "super": ["id": 1]])
            #expect(try coding.decode(Custom.self, from: coding.encode(value)) == value)
        }
    }
}
