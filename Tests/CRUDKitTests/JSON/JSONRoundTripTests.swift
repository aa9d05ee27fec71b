import Foundation
import Testing

@testable import CRUDKit

/// Property tests: thousands of generated values survive writing and parsing unchanged.
@Suite struct JSONRoundTripTests {
    @Test func generatedValuesRoundTrip() throws {
        var generator = SeededGenerator(seed: 2024)
        for round in 0..<3000 {
            let value = randomJSON(depth: 0, &generator)
            let options: JSON.WritingOptions = [[], .prettyPrinted, .sortedKeys][round % 3]
            let data = try value.data(options: options)
            let parsed = try JSON(data: data)
            #expect(parsed == value, "round \(round): \(value)")
            if options.isEmpty {
                #expect(try parsed.data() == data, "order and text are stable")
            }
        }
    }

    @Test func foundationReadsWhatWeWrite() throws {
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<300 {
            let value: JSON = ["value": randomJSON(depth: 0, &generator)]
            let data = try value.data()
            #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: data) }
        }
    }

    @Test func int64EdgeCases() throws {
        let edges: [Int64] = [
            0, 1, -1, 9, 10, 99, 100, Int64(Int32.max), Int64(Int32.min), 9_007_199_254_740_992, 9_007_199_254_740_993,
            -9_007_199_254_740_993, .max, .min, .max - 1, .min + 1,
        ]
        for edge in edges {
            let data = try JSON(edge).data()
            #expect(String(decoding: data, as: UTF8.self) == String(edge))
            #expect(try JSON(data: data).number == .int(edge))
        }
    }

    @Test func unicodeRoundTrips() throws {
        let strings = ["", "ascii", "é", "€", "😀", "👩‍👩‍👧", "\u{10FFFF}", "a\u{0}b", "\u{2028}", "e\u{301}", "\u{FEFF}x"]
        for string in strings {
            #expect(try JSON(data: JSON(string).data()) == JSON(string))
            #expect(try JSON(data: JSON([string: JSON(string)]).data())[string] == JSON(string))
        }
    }
}

private let alphabet: [String] = [
    "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{1}", "é", "€", "😀", "\u{2028}", "_", "{",
]

private func randomString(_ generator: inout SeededGenerator) -> String {
    let length = Int(generator.next() % 12)
    return (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }.joined()
}

func randomJSON(depth: Int, _ generator: inout SeededGenerator) -> JSON {
    let choice = generator.next() % (depth > 4 ? 6 : 8)
    switch choice {
    case 0: return .null
    case 1: return .bool(generator.next() % 2 == 0)
    case 2:
        let magnitude = generator.next() >> (generator.next() % 64)
        return .number(.int(Int64(bitPattern: magnitude)))
    case 3:
        let bits = generator.next()
        let double = Double(bitPattern: bits)
        return .number(.double(double.isFinite ? double : Double(Int64(bitPattern: bits)) / 1e6))
    case 4: return .number(.double(Double(Int(generator.next() % 2_000_000) - 1_000_000) / 1000))
    case 5: return .string(randomString(&generator))
    case 6: return .array((0..<Int(generator.next() % 5)).map { _ in randomJSON(depth: depth + 1, &generator) })
    default:
        var object = JSON.Object()
        for _ in 0..<Int(generator.next() % (generator.next() % 10 == 0 ? 24 : 6)) {
            object[randomString(&generator)] = randomJSON(depth: depth + 1, &generator)
        }
        return .object(object)
    }
}
