import Foundation
import Testing

@testable import CRUDKitJSON

/// Removals from objects around the index threshold keep keys apart by bytes, keep copies independent, keep `==`
/// and hashing consistent while removed places wait for compaction, and keep the storage bounded.
@Suite struct JSONObjectRemovalTests {
    private static let composed = "\u{E9}"
    private static let decomposed = "e\u{301}"

    private static func object(filler: Int) -> JSON.Object {
        var object = JSON.Object()
        for index in 0..<filler { object["k\(index)"] = JSON(index) }
        object[composed] = 1
        object[decomposed] = 2
        return object
    }

    @Test(arguments: [13, 14, 15, 16, 17, 30])
    func normalizationTwinsStayApartThroughRemovalsAndCompaction(filler: Int) {
        var object = Self.object(filler: filler)
        let copy = object
        for index in stride(from: 0, to: filler, by: 2) { object["k\(index)"] = nil }
        #expect(object[Self.composed] == 1)
        #expect(object[Self.decomposed] == 2)
        object[Self.composed] = nil
        #expect(object[Self.composed] == nil)
        #expect(object[Self.decomposed] == 2)
        // Re-inserting a removed key puts it last.
        object[Self.composed] = 3
        #expect(object.keys.last == Self.composed)
        #expect(object.count == filler - (filler + 1) / 2 + 2)
        // The copy taken before the removals is unchanged.
        #expect(copy.count == filler + 2)
        #expect(copy[Self.composed] == 1)
        #expect(copy["k0"] == 0)
        // Equal objects hash the same, whatever their removed places.
        var rebuilt = JSON.Object()
        for (key, value) in object { rebuilt[key] = value }
        #expect(rebuilt == object)
        #expect(rebuilt.hashValue == object.hashValue)
        var swapped = rebuilt
        swapped[Self.composed] = nil
        swapped[Self.decomposed] = 3
        swapped[Self.composed] = 2
        #expect(swapped != object)
    }

    @Test func alternatingRemovalsAndInsertionsKeepTheStorageBounded() {
        var object = Self.object(filler: 20)
        for round in 0..<20_000 {
            object["k\(round % 20)"] = nil
            object["k\(round % 20)"] = JSON(round)
        }
        #expect(object.count == 22)
        #expect(object.storedCount <= 44)
        #expect(object[Self.decomposed] == 2)
    }
}
