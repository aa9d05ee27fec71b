import Foundation
import Testing

@testable import CRUDKitJSON

/// `JSONCoding.encode(_:)` writes compact output with the byte encoder, straight into one buffer. Its bytes and
/// errors must be the tree encoder's (`encodeJSON(_:)` then `data(options:)`), byte for byte: the models the
/// byte encoder writes itself, and the ones it hands back to the tree (a key encoded twice, a container written
/// to after its parent went on, `superEncoder()`, a replaced value, an error a model caught).
@Suite struct JSONByteEncoderTests {
    static let codings: [JSONCoding] = [
        .default, .plain, .camelCase, .vapor,
        JSONCoding(dates: .secondsSince1970), JSONCoding(dates: .millisecondsSince1970),
        JSONCoding(nilEncoding: .null), JSONCoding(writesDecimalsAsStrings: true),
        JSONCoding(engine: .foundation, nilEncoding: .null, writesDecimalsAsStrings: true),
    ]

    /// The tree encoder's bytes, or its error's description.
    static func tree<T: Encodable>(_ value: T, _ coding: JSONCoding) -> String {
        do {
            return String(decoding: try coding.encodeJSON(value).data(options: coding.writing), as: UTF8.self)
        } catch {
            return "error: \(error)"
        }
    }

    /// What `encode(_:)` gives: its bytes, or its error's description.
    static func encoded<T: Encodable>(_ value: T, _ coding: JSONCoding) -> String {
        do {
            return String(decoding: try coding.encode(value), as: UTF8.self)
        } catch {
            return "error: \(error)"
        }
    }

    /// Whether the byte encoder wrote `value` itself (without handing it to the tree encoder).
    static func isDirect<T: Encodable>(_ value: T, _ coding: JSONCoding) -> Bool {
        JSONByteEncoder.directBytes(value, coding: coding) != nil
    }

    // MARK: - Models the byte encoder writes itself

    struct Everything: Encodable {
        struct Inner: Encodable {
            var postalCode = "8001"
            var lines: [String] = []
            var empty: [Int] = []
        }
        struct Nothing: Encodable {}

        var int8 = Int8.min
        var int16 = Int16.max
        var int32 = Int32.min
        var int64 = Int64.min
        var int = Int.max
        var uint8 = UInt8.max
        var uint16 = UInt16.max
        var uint32 = UInt32.max
        var uint64 = UInt64.max
        var uint = UInt(Int64.max) + 1
        var doubles: [Double] = [0.1, -0.0, 1e300, .leastNonzeroMagnitude, 123456789012.5, 1, -2.5e-7]
        var float: Float = 0.1
        var floats: [Float] = [.leastNonzeroMagnitude, .greatestFiniteMagnitude, -0.0]
        var flags = [true, false]
        var text = "quote \" backslash \\ newline \n tab \t bell \u{07} del \u{7F} / é 😀 \u{2028}\u{2029} \u{E2}"
        var emptyText = ""
        var date = Date(timeIntervalSince1970: 1_700_000_000.125)
        var wholeDate = Date(timeIntervalSince1970: 0)
        var microDate = Date(timeIntervalSince1970: 1_234_567_890.123456)
        var url = URL(string: "https://example.com/a b?q=1&r=é")
        var data = Data([0, 1, 2, 250, 255])
        var decimal = Decimal(string: "123456789012345678.91")
        var negativeDecimal = Decimal(string: "-0.000001")
        var missing: String? = nil
        var present: Int? = 7
        var missingModel: Inner? = nil
        var json: JSON = ["z": 1, "a": [true, nil, "x"], "myKey": ["nested": 1.5]]
        var jsonNumber: JSON = .number(.literal(.init(validText: "1.000000000000000000001")))
        var absent: JSONAttribute<Int> = .absent
        var null: JSONAttribute<String> = .null
        var set: JSONAttribute<Inner> = .value(Inner(lines: ["a"]))
        var dictionary: [String: Int] = ["zeta": 1, "Alpha": 2, "camelCase": 3, "a_b": 4, "é": 5]
        var intKeyed: [Int: String] = [3: "c"]
        var nested = [[Inner()], [], [Inner(postalCode: "x", lines: ["1", "2"])]]
        var nothing = Nothing()
        var myURLValue = "acronym"
        var optionalJSON: JSON? = .null
        var doubleOptional: Int?? = .some(nil)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            let mirror = Mirror(reflecting: self)
            for child in mirror.children {
                guard let label = child.label, let value = child.value as? any Encodable else { continue }
                switch value {
                case let value as JSONAttribute<Int>: try container.encode(value, forKey: AnyKey(label))
                case let value as JSONAttribute<String>: try container.encode(value, forKey: AnyKey(label))
                case let value as JSONAttribute<Inner>: try container.encode(value, forKey: AnyKey(label))
                case let value as String?: try container.encodeIfPresent(value, forKey: AnyKey(label))
                case let value as Int?: try container.encodeIfPresent(value, forKey: AnyKey(label))
                case let value as Inner?: try container.encodeIfPresent(value, forKey: AnyKey(label))
                default: try container.encode(value, forKey: AnyKey(label))
                }
            }
        }
    }

    @Test func everyKindOfValueIsWrittenAsTheTreeWritesIt() throws {
        for coding in Self.codings {
            let value = Everything()
            #expect(Self.isDirect(value, coding))
            #expect(Self.encoded(value, coding) == Self.tree(value, coding))
            #expect(Self.encoded([value, value], coding) == Self.tree([value, value], coding))
        }
    }

    @Test func topLevelValuesOfEveryKind() throws {
        let coding = JSONCoding.default
        func check<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(Self.isDirect(value, coding), sourceLocation: sourceLocation)
            #expect(Self.encoded(value, coding) == Self.tree(value, coding), sourceLocation: sourceLocation)
        }
        check(5)
        check("text")
        check(Int?.none)
        check(Date(timeIntervalSince1970: 5))
        check(Decimal(string: "1.5"))
        check(JSON.null)
        check([String: [Int]]())
        check(["b": ["x": 1], "a": ["y": 2]])
        check([[1, 2], [], [3]])
        check(Everything.Nothing())
        check(SingleValueWrapper(value: 1.5))
    }

    /// The hard cases the byte encoder writes itself: a keyed container opened again (members go on), a member
    /// after a nested container (which ends it), a value that opens no container (`{}`), a single value at the
    /// top.
    @Test func reopenedAndInterleavedContainersInOrderAreWrittenDirectly() throws {
        for coding in Self.codings {
            for shape in Shape.allCases where shape.isDirect {
                let value = Shaped(shape: shape)
                #expect(Self.isDirect(value, coding), "\(shape)")
                #expect(Self.encoded(value, coding) == Self.tree(value, coding), "\(shape)")
                #expect(Self.encoded(["k": [value]], coding) == Self.tree(["k": [value]], coding), "\(shape)")
            }
        }
        #expect(
            Self.encoded(["k": [Shaped(shape: .reportsPaths)]], .default).contains(#""inner":"k/Index 0/list/Index 1""#)
        )
    }

    /// The hard cases a stream cannot write go back to the tree encoder, which gives the same bytes (or error) as
    /// before.
    @Test func whatAStreamCannotWriteGoesToTheTree() throws {
        for coding in Self.codings {
            for shape in Shape.allCases where !shape.isDirect {
                let value = Shaped(shape: shape)
                #expect(!Self.isDirect(value, coding), "\(shape)")
                let tree = Self.tree(value, coding)
                #expect(Self.encoded(value, coding) == tree, "\(shape)")
                #expect(
                    Self.encoded([Shaped(shape: .inOrder), value], coding)
                        == Self.tree([Shaped(shape: .inOrder), value], coding))
            }
        }
    }

    /// `fooBar` and `foo_bar` are one key once converted: the tree keeps the last value, so the byte encoder hands
    /// the model over; without conversion they are two keys, written directly.
    @Test func keysTheSameOnlyAfterConversionGoToTheTree() throws {
        let value = [Shaped(shape: .inOrder), Shaped(shape: .inOrder)].map { _ in ["fooBar": 1] }
        let colliding = KeyCollision()
        #expect(!Self.isDirect(colliding, .default))
        #expect(Self.encoded(colliding, .default) == Self.tree(colliding, .default))
        #expect(Self.encoded(colliding, .default) == #"{"foo_bar":2}"#)
        #expect(Self.isDirect(colliding, .camelCase))
        #expect(Self.encoded(colliding, .camelCase) == #"{"fooBar":1,"foo_bar":2}"#)
        #expect(Self.encoded(value, .default) == #"[{"fooBar":1},{"fooBar":1}]"#)
    }

    /// Two keys that are one in snake_case.
    struct KeyCollision: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encode(1, forKey: AnyKey("fooBar"))
            try container.encode(2, forKey: AnyKey("foo_bar"))
        }
    }

    // MARK: - Errors

    @Test func errorsAreTheTreesErrors() throws {
        let far = Date(timeIntervalSince1970: 1e12)
        let early = Date(timeIntervalSince1970: -1e12)
        let infinite = Date(timeIntervalSince1970: .infinity)
        let values: [any Encodable] = [
            ["ok": [1.0, .nan]], ["a": [Float.infinity]], [far], ["when": early], [infinite],
            ["json": JSON.array([1, .number(.double(-.infinity))])], Decimal.nan, ["d": [Decimal.nan]],
        ]
        for coding in Self.codings {
            for value in values {
                let tree = Self.tree(value, coding)
                #expect(Self.encoded(value, coding) == tree)
            }
        }
        #expect(Self.encoded([far], .default).contains("0000–9999"))
        #expect(Self.encoded(["ok": [1.0, .nan]], .default).contains("ok[1]"))
    }

    // MARK: - Depth

    /// A linked list 100,000 deep, made as it is encoded: both encoders refuse it, with the tree's error, on a
    /// 512 KB thread (before the byte encoder, its depth guard was the tree's alone).
    @Test func aListDeeperThanTheStackIsRefusedOnASmallThread() throws {
        let outcome = RecursiveModelStackTests.onThread(stack: 512 * 1024) {
            [Self.encoded(Countdown(remaining: 100_000), .default), Self.tree(Countdown(remaining: 100_000), .default)]
        }
        let results = try #require(outcome)
        #expect(results.count == 2)
        #expect(
            results.allSatisfy { $0.hasPrefix("error: ") && $0.contains("stack") }, "\(results.map { $0.prefix(200) })")
        let shallow = RecursiveModelStackTests.onThread(stack: 512 * 1024) {
            [Self.encoded(Countdown(remaining: 30), .default), Self.tree(Countdown(remaining: 30), .default)]
        }
        #expect(shallow?.first == shallow?.last)
        #expect(shallow?.first?.hasPrefix(#"{"remaining":30,"next":{"#) == true)
    }

    /// A `JSON` value nested deep inside a model is written without recursion.
    @Test func deepJSONInsideAModelIsWrittenOnASmallThread() throws {
        let levels = JSONDeepNestingTests.deepLevels
        let outcome = RecursiveModelStackTests.onThread(stack: 512 * 1024) {
            var value: JSON = 1
            for level in 0..<levels { value = level.isMultiple(of: 2) ? ["a": value] : [value, 2] }
            let model = ["payload": [value]]
            return [Self.encoded(model, .default), Self.tree(model, .default)]
        }
        let results = try #require(outcome)
        #expect(results.first == results.last)
        #expect(results.first?.hasPrefix(#"{"payload":[[{"a":[{"a":["#) == true)
    }

    // MARK: - Property test

    /// Generated models of every shape, nested up to six levels, with keys that sometimes repeat (also after
    /// snake_case conversion) and containers nested both ways: the byte encoder's output is the tree's.
    @Test func generatedModelsAreWrittenAsTheTreeWritesThem() throws {
        var generator = SeededGenerator(seed: 0x5EED_2024)
        var direct = 0
        var fallBack = 0
        for round in 0..<600 {
            let node = Node.random(&generator, depth: 6)
            let coding = Self.codings[round % Self.codings.count]
            let tree = Self.tree(node, coding)
            #expect(Self.encoded(node, coding) == tree, "round \(round): \(node)")
            if Self.isDirect(node, coding) { direct += 1 } else { fallBack += 1 }
        }
        #expect(direct > 300)
        #expect(fallBack > 10)
    }
}
