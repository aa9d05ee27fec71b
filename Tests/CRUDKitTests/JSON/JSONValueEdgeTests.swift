import Foundation
import Testing

@testable import CRUDKitJSON

/// Floats written through every path as their shortest text (item 4), numbers with exponents past 10⁹ and NaN
/// compared exactly (item 8), and large objects edited in time linear in the keys touched (item 7) — issue 39.
@Suite struct JSONValueEdgeTests {
    // MARK: - Float

    @Test func floatIsWrittenAsItsShortestTextOnEveryPath() throws {
        let value: Float = 0.1
        #expect(JSON(value).description == "0.1")
        #expect(JSON(["score": value]).description == #"{"score":0.1}"#)
        #expect(JSON([value, 1.5, 3.4028235e38]).description == "[0.1,1.5,3.4028235e+38]")
        #expect(String(decoding: try JSONCoding.default.encode([value]), as: UTF8.self) == "[0.1]")
        #expect(try JSON(encoding: [value]).description == "[0.1]")
        // Reads back as the same Float.
        #expect(try JSON(value).decode(Float.self) == value)
        for bits in stride(from: UInt32(0x0080_0000), to: 0x7F7F_FFFF, by: 7_919_111) {
            let float = Float(bitPattern: bits)
            let text = JSON(float).description
            let encoded = try JSON(encoding: float).description
            #expect(Float(text) == float && text == encoded, "\(float) → \(text)")
        }
    }

    // MARK: - Numbers

    @Test func exponentsPastABillionCompareExactly() throws {
        let small = try JSON(string: "1e-1000000000")
        let smaller = try JSON(string: "1e-1000000005")
        #expect(small != smaller)
        #expect(small == (try JSON(string: "10e-1000000001")))
        #expect(small.hashValue == (try JSON(string: "1.0e-1000000000")).hashValue)
        let huge = try JSON(string: "1e-99999999999999999999")
        #expect(huge != (try JSON(string: "1e-99999999999999999998")))
        #expect(huge == (try JSON(string: "1.0e-99999999999999999999")))
        #expect(huge != 0)
    }

    @Test func nanEqualsItself() {
        let nan = JSON(Double.nan)
        #expect(nan == nan)
        #expect(JSON(-Double.nan) == nan)
        #expect(nan.hashValue == JSON(Double(bitPattern: 0x7FF8_0000_0000_0001)).hashValue)
        #expect(Set([nan, nan]).count == 1)
        #expect(nan != JSON(0))
    }

    // MARK: - Editing large objects

    private static func object(keys: Int) -> JSON.Object {
        var object = JSON.Object()
        for index in 0..<keys { object["k\(index)"] = JSON(index) }
        return object
    }

    /// Removals mark places and compact once half are gone: no member moves and no index is rebuilt per removal
    /// (each rebuilt the whole index before: 8,000 removals from 20,000 keys took 7–19 s in release).
    @Test func removingKeysFromALargeObjectMovesNothing() {
        var object = Self.object(keys: 20_000)
        for index in stride(from: 0, to: 16_000, by: 2) {
            #expect(object.removeValue(forKey: "k\(index)") == JSON(index))
        }
        #expect(object.count == 12_000)
        #expect(object.storedCount == 20_000)
        #expect(object.removeValue(forKey: "k0") == nil)
        #expect(object["k2"] == nil && object["k1"] == 1 && object["k19999"] == 19_999)
        #expect(object.keys.prefix(3) == ["k1", "k3", "k5"])
        #expect(object.keys.count == 12_000)
        // Adding after removals keeps the order; removing the rest compacts.
        object["new"] = "n"
        #expect(object.keys.last == "new")
        for index in 16_000..<20_000 { object["k\(index)"] = nil }
        #expect(object.count == 8_001)
        #expect(object.storedCount < 20_000)
        var copy = object
        copy["k1"] = nil
        #expect(object["k1"] == 1 && copy["k1"] == nil && copy.count == 8_000)
        #expect(object == Self.object(keys: 16_000).filteringOdd(adding: "new"))
    }

    @Test func mergePatchWithManyNullsIsLinear() {
        let target = JSON.object(Self.object(keys: 20_000))
        var patch = JSON.Object()
        for index in 0..<10_000 { patch["k\(index * 2)"] = .null }
        let patched = target.applyingMergePatch(.object(patch))
        #expect(patched.object?.count == 10_000)
        #expect(patched["k1"] == 1 && patched["k0"] == .null && patched.object?["k0"] == nil)
        #expect(patched.object.map { $0.storedCount <= 20_000 } == true)
    }
}

extension JSON.Object {
    /// The members with odd numbers, then `key`.
    fileprivate func filteringOdd(adding key: String) -> JSON.Object {
        var result = JSON.Object(
            filter { Int($0.key.dropFirst()).map { $0 % 2 == 1 } ?? false }.map { ($0.key, $0.value) })
        result[key] = "n"
        return result
    }
}
