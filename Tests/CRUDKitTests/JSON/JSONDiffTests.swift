import Foundation
import Testing

@testable import CRUDKit

@Suite struct JSONDiffTests {
    let original: JSON = [
        "id": 1, "name": "Ada", "color": "green", "address": ["city": "London", "zip": "N1"], "tags": ["a", "b"],
    ]

    @Test func changedRemovedAndAddedKeys() {
        var edited = original
        edited["color"] = "blue"
        edited["nickname"] = "Countess"
        edited = .object(
            (edited.object ?? JSON.Object()).filter { $0.key != "name" }.reduce(into: JSON.Object()) {
                $0[$1.key] = $1.value
            })
        let patch = edited.diff(from: original)
        #expect(patch == ["color": "blue", "nickname": "Countess", "name": nil])
        #expect(original.applyingMergePatch(patch) == edited)
    }

    @Test func nestedObjectsAreDiffedOrSentWhole() {
        var edited = original
        edited["address"]["city"] = "Paris"
        edited["tags"] = ["a"]
        #expect(edited.diff(from: original) == ["address": ["city": "Paris"], "tags": ["a"]])
        #expect(
            edited.diff(from: original, recursive: false) == [
                "address": ["city": "Paris", "zip": "N1"], "tags": ["a"],
            ])
        #expect(original.applyingMergePatch(edited.diff(from: original)) == edited)
    }

    @Test func unchangedGivesAnEmptyPatchAndNonObjectsAreReplaced() {
        #expect(original.diff(from: original) == [:])
        #expect(JSON(1.0).diff(from: 1) == 1.0)
        #expect(JSON([1, 2]).diff(from: original) == [1, 2])
        #expect(original.diff(from: [1]) == original)
        var clearing = original
        clearing["color"] = nil
        #expect(clearing.diff(from: original) == ["color": nil])
        #expect(JSON(5).applyingMergePatch(["a": 1]) == ["a": 1])
        #expect(original.applyingMergePatch("replaced") == "replaced")
    }

    @Test func generatedDiffsApplyBack() {
        var generator = SeededGenerator(seed: 5)
        var checked = 0
        for _ in 0..<500 {
            let keys = ["a", "b", "c", "d"]
            var before = JSON.Object()
            var after = JSON.Object()
            for key in keys {
                if generator.next() % 3 != 0 { before[key] = randomJSON(depth: 3, &generator) }
                if generator.next() % 3 != 0 { after[key] = randomJSON(depth: 3, &generator) }
                if generator.next() % 2 == 0 { after[key] = before[key] }
            }
            guard !containsNull(.object(after)) else { continue }
            checked += 1
            #expect(
                JSON.object(before).applyingMergePatch(JSON.object(after).diff(from: .object(before))) == .object(after)
            )
        }
        #expect(checked > 100)
    }

    private func containsNull(_ json: JSON) -> Bool {
        switch json {
        case .null: return true
        case .array(let values): return values.contains(where: containsNull)
        case .object(let object): return object.values.contains(where: containsNull)
        default: return false
        }
    }
}
