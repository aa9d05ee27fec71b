import Foundation
import Testing

@testable import CRUDKitJSON

/// Seeded random documents and models run through CRUDKit and through Foundation's `JSONDecoder` and `JSONEncoder`;
/// any difference fails, except those the Models article lists under "Where CRUDKit and Foundation differ"
/// (``Deliberate``), which the generators below steer around or the comparisons name.
@Suite struct JSONFoundationDifferentialTests {
    /// The deliberate differences, by their titles in the Models article.
    enum Deliberate: String, CaseIterable {
        case keysByBytes = "Keys are compared by their bytes"
        case decimalDigits = "No number is rounded"
        case snakeCaseNames = "Every property reads back what it writes"
        case memberOrder = "Member order"
        case doubleShortestForm = "A number in a double's shortest form is that double"
    }

    @Test func everyDeliberateDifferenceIsListedInTheArticle() throws {
        let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../Sources/CRUDKit/CRUDKit.docc/Models.md")
        let text = try String(contentsOf: article.standardizedFileURL, encoding: .utf8)
        for difference in Deliberate.allCases {
            #expect(text.contains("- **\(difference.rawValue)**"), "\(difference)")
        }
    }

    // MARK: - Documents

    /// A value as Foundation's `JSONDecoder` reads it: numbers through `Int64`, `UInt64`, then `Decimal` and
    /// `Double`.
    indirect enum FoundationValue: Codable {
        case null, bool(Bool), int(Int64), uint(UInt64), decimal(Decimal?, Double), string(String)
        case array([FoundationValue]), object([String: FoundationValue])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int64.self) {
                self = .int(value)
            } else if let value = try? container.decode(UInt64.self) {
                self = .uint(value)
            } else if let double = try? container.decode(Double.self) {
                self = .decimal(try? container.decode(Decimal.self), double)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([FoundationValue].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: FoundationValue].self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            case .uint(let value): try container.encode(value)
            case .decimal(let decimal, let double):
                // The decimal when it holds more digits than the double writes (`1234567890.123456789`).
                if let decimal, Double(decimal.description) == double,
                    JSONDecimalDigits(decimal.description.utf8) != JSONDecimalDigits(double.description.utf8)
                {
                    try container.encode(decimal)
                } else {
                    try container.encode(double)
                }
            case .string(let value): try container.encode(value)
            case .array(let values): try container.encode(values)
            case .object(let members): try container.encode(members)
            }
        }
    }

    /// Whether Foundation read `json` as the same value; `nil` when only a deliberate difference tells them apart.
    private static func same(_ json: JSON, _ theirs: FoundationValue) -> Bool? {
        switch (json, theirs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.number(let number), _): return sameNumber(number, theirs)
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return false }
            var result: Bool? = true
            for (left, right) in zip(a, b) {
                guard let same = same(left, right) else {
                    result = nil
                    continue
                }
                if !same { return false }
            }
            return result
        case (.object(let a), .object(let b)):
            // Foundation's `[String: …]` merges keys that differ only in normalization.
            guard a.dictionary.count == a.count else { return nil }
            guard a.count == b.count else { return false }
            var result: Bool? = true
            for member in a {
                guard let other = b[member.key] else { return false }
                guard let same = same(member.value, other) else {
                    result = nil
                    continue
                }
                if !same { return false }
            }
            return result
        default: return false
        }
    }

    /// Whether Foundation read the number with the same value (by value: `JSONDecoder` may read `2.0` as `Int64`).
    private static func sameNumber(_ number: JSON.Number, _ theirs: FoundationValue) -> Bool? {
        switch theirs {
        case .int(let value): return number == .int(value) ? true : readAsInteger(number, Double(value))
        case .uint(let value):
            return number == JSON.Number(exactly: value) ? true : readAsInteger(number, Double(value))
        case .decimal(let decimal, let double):
            guard double == number.doubleValue else { return false }
            if case .double = number { return true }
            // Past `Decimal`'s 38 digits `JSONDecoder` rounds: CRUDKit keeps every digit.
            guard let exact = number.decimalValue else { return nil }
            return decimal == exact
        default: return false
        }
    }

    /// `nil` when `JSONDecoder` read `number` as another integer of the same nearest `Double`, a deliberate
    /// difference: a literal it rounded (`1.0000000000000000000000000000000000000001` as `Int64` is `1`,
    /// ``Deliberate/decimalDigits``), or a double CRUDKit wrote in its shortest form, whose digits spell another
    /// integer (`1.6685684701560089e+19` is 16685684701560088576; as `UInt64` `JSONDecoder` reads
    /// 16685684701560089000, ``Deliberate/doubleShortestForm``); `false` otherwise.
    private static func readAsInteger(_ number: JSON.Number, _ double: Double) -> Bool? {
        guard number.doubleValue == double else { return false }
        switch number {
        case .literal, .double: return nil
        case .int: return false
        }
    }

    private static let keys = ["id", "first_name", "a", "\u{E9}", "e\u{301}", "k\"q", "\\", "\u{1F600}", "", "x y"]
    private static let strings = [
        "", "Ada", "line\nbreak", "tab\t\u{1}", "\"quoted\"", "\u{E9}t\u{E9}", "e\u{301}", "\u{1F600}\u{FFFF}", "/",
    ]
    private static let numbers = [
        "0", "-1", "9223372036854775807", "-9223372036854775808", "18446744073709551615", "9007199254740993",
        "0.1", "-2.5e-3", "1e20", "1234567890.123456789", "123456789012345678901234567890",
        "1.0000000000000000000000000000000000000001", "3.4028235e+38", "5e-324", "-0.0",
    ]

    private static func randomValue(_ random: inout SeededGenerator, depth: Int) -> JSON {
        switch Int.random(in: 0..<(depth > 3 ? 5 : 8), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .string(strings.randomElement(using: &random)!)
        case 3:
            // swiftlint: a random finite double, written and read back.
            let double = Double(bitPattern: UInt64.random(in: 0..<0x7FF0_0000_0000_0000, using: &random))
            return JSON(Bool.random(using: &random) ? double : -double)
        case 4:
            if Bool.random(using: &random) { return JSON(Int64.random(in: .min ... .max, using: &random)) }
            return (try? JSON(string: numbers.randomElement(using: &random)!)) ?? .null
        case 5, 6:
            var object = JSON.Object()
            for _ in 0..<Int.random(in: 0...20, using: &random) {
                let key = keys.randomElement(using: &random)! + (Bool.random(using: &random) ? "" : "\(object.count)")
                object[key] = randomValue(&random, depth: depth + 1)
            }
            return .object(object)
        default:
            return .array(
                (0..<Int.random(in: 0...6, using: &random)).map { _ in randomValue(&random, depth: depth + 1) })
        }
    }

    /// The first leaf where Foundation's reading differs from `json` (its path and both values), for messages.
    static func leafDifference(_ json: JSON, _ theirs: FoundationValue, at path: String = "$") -> String? {
        switch (json, theirs) {
        case (.array(let a), .array(let b)) where a.count == b.count:
            for (index, (left, right)) in zip(a, b).enumerated() {
                if let found = leafDifference(left, right, at: "\(path)[\(index)]") { return found }
            }
            return nil
        case (.object(let a), .object(let b)) where a.count == b.count:
            for member in a {
                guard let other = b[member.key] else {
                    return "\(path): no \(member.key.debugDescription) in \(b.keys)"
                }
                if let found = leafDifference(member.value, other, at: "\(path)[\(member.key.debugDescription)]") {
                    return found
                }
            }
            return nil
        default:
            return same(json, theirs) == false ? "\(path): \(json) read by Foundation as \(theirs)" : nil
        }
    }

    /// The first leaf where `a` and `b` differ, for messages.
    static func leafDifference(_ a: JSON, _ b: JSON, at path: String = "$") -> String? {
        switch (a, b) {
        case (.array(let x), .array(let y)) where x.count == y.count:
            for (index, (left, right)) in zip(x, y).enumerated() {
                if let found = leafDifference(left, right, at: "\(path)[\(index)]") { return found }
            }
            return nil
        case (.object(let x), .object(let y)) where x.count == y.count:
            for member in x {
                guard let other = y[member.key] else { return "\(path): no \(member.key.debugDescription)" }
                if let found = leafDifference(member.value, other, at: "\(path)[\(member.key.debugDescription)]") {
                    return found
                }
            }
            return nil
        default:
            return a == b ? nil : "\(path): \(a) against \(b)"
        }
    }

    @Test func randomDocumentsReadTheSameBothWays() throws {
        var random = SeededGenerator(seed: 39)
        var compared = 0
        for round in 0..<400 {
            let json = Self.randomValue(&random, depth: 0)
            let text = try json.data()
            // CRUDKit reads back what it wrote.
            let reread = try JSON(data: text)
            #expect(reread == json, "round \(round): \(Self.leafDifference(json, reread) ?? "")")
            // Foundation reads the same values from CRUDKit's text…
            let theirs = try JSONDecoder().decode(FoundationValue.self, from: text)
            let same = Self.same(json, theirs)
            #expect(same != false, "round \(round): \(Self.leafDifference(json, theirs) ?? "?")")
            guard same == true else { continue }
            compared += 1
            // …and CRUDKit reads the same values from Foundation's.
            let back = try JSON(data: JSONEncoder().encode(theirs))
            #expect(back == json, "round \(round): \(Self.leafDifference(json, back) ?? "")")
            // `JSON` itself through Foundation's coders.
            let through = try JSONDecoder().decode(JSON.self, from: JSONEncoder().encode(json))
            #expect(through == json, "round \(round): \(Self.leafDifference(json, through) ?? "")")
        }
        #expect(compared > 250)
    }

    /// ``Deliberate/doubleShortestForm``: CRUDKit reads the shortest text of a double as that double, so what it
    /// writes reads back the same; `JSONDecoder` reads an integer type from the digits as spelled.
    @Test func aNumberInADoublesShortestFormIsThatDouble() throws {
        let double = 16_685_684_701_560_088_576.0
        let text = try JSON(double).data()
        #expect(String(decoding: text, as: UTF8.self) == "1.6685684701560089e+19")
        #expect(try JSON(data: text) == .number(.double(double)))
        #expect(try JSON(data: text).decode(UInt64.self) == 16_685_684_701_560_088_576)
        #expect(try JSONDecoder().decode(UInt64.self, from: text) == 16_685_684_701_560_089_000)
        // As a `Double` both read the same.
        #expect(try JSONDecoder().decode(Double.self, from: text) == double)
        // An integer written as one stays exact on both sides.
        let integer = Data("16685684701560089000".utf8)
        #expect(try JSON(data: integer).decode(UInt64.self) == 16_685_684_701_560_089_000)
    }

    // MARK: - Models

    struct Address: Codable, Equatable {
        var streetName: String
        var zipCode: String?
        var lines: [String]
    }

    enum Kind: String, Codable, CaseIterable {
        case plain
        case twoWords = "two_words"
    }

    struct Account: Codable, Equatable {
        var id: Int64
        var balance: Decimal
        var ratio: Double
        var score: Float
        var count: UInt64?
        var small: Int8
        var isActive: Bool
        var nickName: String?
        var tags: [String]
        var scoresByName: [String: Int]
        var address: Address?
        var history: [Address]
        var kind: Kind
        var createdAt: Date
        var homePage: URL?
        var blob: Data
        var extra: JSON
    }

    private static func randomAccount(_ random: inout SeededGenerator) -> Account {
        func string() -> String { strings.randomElement(using: &random)! }
        func address() -> Address {
            Address(
                streetName: string(), zipCode: Bool.random(using: &random) ? nil : string(),
                lines: (0..<Int.random(in: 0...3, using: &random)).map { _ in string() })
        }
        let digits = Int64.random(in: -999_999_999_999...999_999_999_999, using: &random)
        let balance =
            Decimal(digits) / Decimal(sign: .plus, exponent: Int.random(in: 0...6, using: &random), significand: 1)
        var scores: [String: Int] = [:]
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            scores[keys.randomElement(using: &random)!] = Int.random(in: -5...5, using: &random)
        }
        return Account(
            id: Int64.random(in: .min ... .max, using: &random),
            balance: balance,
            ratio: Double(bitPattern: UInt64.random(in: 0..<0x7FF0_0000_0000_0000, using: &random)),
            score: Float(bitPattern: UInt32.random(in: 0..<0x7F80_0000, using: &random)),
            count: Bool.random(using: &random) ? nil : UInt64.random(in: 0 ... .max, using: &random),
            small: Int8.random(in: .min ... .max, using: &random),
            isActive: Bool.random(using: &random),
            nickName: Bool.random(using: &random) ? nil : string(),
            tags: (0..<Int.random(in: 0...3, using: &random)).map { _ in string() },
            scoresByName: scores,
            address: Bool.random(using: &random) ? nil : address(),
            history: (0..<Int.random(in: 0...2, using: &random)).map { _ in address() },
            kind: Kind.allCases.randomElement(using: &random)!,
            createdAt: Date(timeIntervalSince1970: Double(Int.random(in: 0...2_000_000_000, using: &random))),
            homePage: Bool.random(using: &random)
                ? nil : URL(string: "https://example.com/\(Int.random(in: 0...9, using: &random))"),
            blob: Data(
                (0..<Int.random(in: 0...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }),
            extra: ["n": JSON(Int.random(in: 0...9, using: &random)), "s": .string(string())])
    }

    @Test(arguments: [JSONCoding.default, .plain])
    func randomModelsEncodeAndDecodeAsFoundationDoes(coding: JSONCoding) throws {
        var random = SeededGenerator(seed: coding.convertsSnakeCase ? 3_939 : 393)
        let foundationEncoder = coding.makeJSONEncoder()
        let foundationDecoder = coding.makeJSONDecoder()
        for round in 0..<150 {
            let account = Self.randomAccount(&random)
            let ours = try coding.encode(account)
            let theirs = try foundationEncoder.encode(account)
            // The same document (member order aside).
            #expect(try JSON(data: ours) == JSON(data: theirs), "round \(round)")
            #expect(try JSON(encoding: account, coding: coding) == JSON(data: theirs), "round \(round)")
            // Each reads the other's.
            #expect(try coding.decode(Account.self, from: theirs) == account, "round \(round)")
            #expect(try foundationDecoder.decode(Account.self, from: ours) == account, "round \(round)")
            #expect(try JSON(data: ours).decode(Account.self, coding: coding) == account, "round \(round)")
        }
    }
}
