import Dispatch
import Foundation
import Testing

@testable import CRUDKit

/// Documents nested up to the default limit of 512 levels are parsed, written, compared, hashed, diffed and
/// decoded on a 512 KB thread (the stack size of GCD and Swift-concurrency threads on Apple platforms): nothing on
/// that path depends on the depth of the stack.
@Suite struct JSONDeepNestingTests {
    /// Levels for values deeper than the default limit: 2,000, or 1,000 under a sanitizer, whose instrumented
    /// frames are several times larger (freeing a value still recurses inside Swift, see `JSON.maxDepth`).
    static let deepLevels = TestEnvironment.underSanitizer ? 1_000 : 2_000

    /// Runs `body` on a thread with a 512 KB stack; returns whether it finished within 60 s.
    private func onSmallStack(_ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        return done.wait(timeout: .now() + 60) == .success
    }

    /// `levels` nested arrays around `1`.
    private static func arrays(_ levels: Int) -> String {
        String(repeating: "[", count: levels) + "1" + String(repeating: "]", count: levels)
    }

    /// `levels` nested objects `{"a":{"a":…1…}}`.
    private static func objects(_ levels: Int, key: String = "a", leaf: String = "1") -> String {
        String(repeating: #"{"\#(key)":"#, count: levels) + leaf + String(repeating: "}", count: levels)
    }

    /// `levels` levels alternating between an object with two members and an array with two elements.
    private static func mixed(_ levels: Int) -> String {
        var text = "\"leaf\""
        for level in 0..<levels {
            text = level.isMultiple(of: 2) ? #"{"n":\#(level),"v":\#(text)}"# : "[\(text),\(level)]"
        }
        return text
    }

    /// The value of ``mixed(_:)``, built in code (no parser involved).
    private static func mixedValue(_ levels: Int) -> JSON {
        var value: JSON = "leaf"
        for level in 0..<levels {
            value = level.isMultiple(of: 2) ? ["n": JSON(level), "v": value] : [value, JSON(level)]
        }
        return value
    }

    /// The value of ``objects(_:key:leaf:)``, built in code.
    private static func objectsValue(_ levels: Int, leaf: JSON = 1) -> JSON {
        var value = leaf
        for _ in 0..<levels { value = ["a": value] }
        return value
    }

    /// How deep `value` is (arrays and objects count a level each), walked without recursion.
    private static func depth(of value: JSON) -> Int {
        var deepest = 0
        var pending: [(JSON, Int)] = [(value, 0)]
        while let (next, level) = pending.popLast() {
            deepest = max(deepest, level)
            switch next {
            case .array(let values): pending += values.map { ($0, level + 1) }
            case .object(let object): pending += object.values.map { ($0, level + 1) }
            default: break
            }
        }
        return deepest
    }

    // MARK: - Parsing

    @Test func parsesFiveHundredTwelveLevels() {
        let outcome = Locked<[Int]>([])
        let finished = onSmallStack {
            let depths = [Self.arrays(512), Self.objects(512), Self.mixed(512)].map { text in
                (try? JSON(string: text)).map(Self.depth(of:)) ?? -1
            }
            outcome.withLock { $0 = depths }
        }
        #expect(finished)
        #expect(outcome.withLock { $0 } == [512, 512, 512])
    }

    @Test func refusesTheLevelAfterTheLimitWithTheSameError() {
        let outcome = Locked<[JSONError?]>([])
        let finished = onSmallStack {
            var errors: [JSONError?] = []
            for text in [Self.arrays(513), Self.objects(600), Self.mixed(513), String(repeating: "[", count: 100_000)] {
                do {
                    _ = try JSON(string: text)
                    errors.append(nil)
                } catch {
                    errors.append(error as? JSONError)
                }
            }
            outcome.withLock { $0 = errors }
        }
        #expect(finished)
        let errors = outcome.withLock { $0 }
        #expect(errors.map { $0?.reason } == Array(repeating: .tooDeep(limit: 512), count: 4))
        // The byte of the first bracket past the limit, as before.
        #expect(errors.first??.offset == 512)
        #expect(errors.dropFirst().first??.offset == 512 * 5)
    }

    @Test func aHigherLimitParsesDeeperDocuments() {
        let outcome = Locked<Int>(-1)
        let finished = onSmallStack {
            let deep = Self.arrays(Self.deepLevels)
            let depth = (try? JSON(string: deep, options: .init(maxDepth: Self.deepLevels))).map(Self.depth(of:)) ?? -1
            outcome.withLock { $0 = depth }
        }
        #expect(finished)
        #expect(outcome.withLock { $0 } == Self.deepLevels)
    }

    // MARK: - Writing, description, equality, hashing

    @Test func writesAndDescribesFiveHundredTwelveLevels() {
        let outcome = Locked<[String]>([])
        let finished = onSmallStack {
            var written: [String] = []
            for json in [Self.objectsValue(512), Self.mixedValue(512)] {
                written.append((try? json.jsonString()) ?? "failed")
                written.append((try? json.jsonString(options: .sortedKeys)) ?? "failed")
                written.append(json.description)
                let pretty = (try? json.jsonString(options: [.prettyPrinted, .sortedKeys])) ?? "failed"
                written.append(String(pretty.filter { !$0.isWhitespace }))
            }
            outcome.withLock { $0 = written }
        }
        #expect(finished)
        let expected = [Self.objects(512), Self.mixed(512)].flatMap { Array(repeating: $0, count: 4) }
        #expect(outcome.withLock { $0 } == expected)
    }

    @Test func prettyPrintingIndentsEveryLevel() throws {
        let json = try JSON(string: Self.arrays(3))
        #expect(try json.jsonString(options: .prettyPrinted) == "[\n  [\n    [\n      1\n    ]\n  ]\n]")
        let object = try JSON(string: #"{"b":[1,{"c":{}}],"a":[]}"#)
        #expect(
            try object.jsonString(options: [.prettyPrinted, .sortedKeys])
                == "{\n  \"a\": [],\n  \"b\": [\n    1,\n    {\n      \"c\": {}\n    }\n  ]\n}")
    }

    @Test func aNonFiniteNumberFiveHundredLevelsDownIsNamedByItsPath() {
        let outcome = Locked<JSONError?>(nil)
        let finished = onSmallStack {
            var value = JSON.array([1, JSON(Double.nan)])
            for level in 0..<500 { value = level.isMultiple(of: 2) ? ["k": value] : [value] }
            do {
                _ = try value.data()
            } catch {
                outcome.withLock { $0 = error as? JSONError }
            }
        }
        #expect(finished)
        let steps = (0..<500).reversed().map { $0.isMultiple(of: 2) ? "k" : "[0]" }
        var path = "[1]"
        for step in steps.reversed() {
            path = path.hasPrefix("[") ? step + path : step + "." + path
        }
        #expect(outcome.withLock { $0 }?.reason == .nonFiniteNumber(path: path))
        #expect(path.hasPrefix("[0].k[0].k[0]") && path.hasSuffix(".k[1]"))
    }

    /// 2,000 levels: more than the default limit allows, as a value built in code or parsed with a higher limit
    /// can be.
    @Test func comparesAndHashesTwoThousandLevels() {
        let outcome = Locked<[Bool]>([])
        let finished = onSmallStack {
            let first = Self.mixedValue(Self.deepLevels)
            let same = Self.mixedValue(Self.deepLevels)
            let objects = Self.objectsValue(Self.deepLevels)
            let otherLeaf = Self.objectsValue(Self.deepLevels, leaf: 2)
            outcome.withLock {
                $0 = [
                    first == same, first.hashValue == same.hashValue, objects == otherLeaf, objects == first,
                    Set([first, same, objects, otherLeaf]).count == 3,
                ]
            }
        }
        #expect(finished)
        #expect(outcome.withLock { $0 } == [true, true, false, false, true])
    }

    // MARK: - Merge patches

    @Test func diffsFiveHundredTwelveLevelsAndPatchesTwoThousand() {
        let outcome = Locked<[Bool]>([])
        let finished = onSmallStack {
            let original = Self.objectsValue(512)
            let edited = Self.objectsValue(512, leaf: ["b": 2])
            let expectedPatch = Self.objectsValue(512, leaf: ["b": 2])
            let patch = edited.diff(from: original)
            let flat = edited.diff(from: original, recursive: false)
            outcome.withLock {
                $0 = [
                    patch == expectedPatch, original.applyingMergePatch(patch) == edited,
                    flat == edited, edited.diff(from: edited) == [:],
                    Self.objectsValue(Self.deepLevels).applyingMergePatch(Self.objectsValue(Self.deepLevels, leaf: 2))
                        == Self.objectsValue(Self.deepLevels, leaf: 2),
                ]
            }
        }
        #expect(finished)
        #expect(outcome.withLock { $0 } == [true, true, true, true, true])
    }

    @Test func deepPatchesRemoveAndReplaceLikeTheShallowOnes() throws {
        let original: JSON = ["a": ["b": ["c": 1, "d": 2], "e": [1, 2]], "f": "x"]
        let edited: JSON = ["a": ["b": ["c": 1, "g": 3], "e": [1]], "h": true]
        let patch = edited.diff(from: original)
        #expect(patch == ["a": ["b": ["d": nil, "g": 3], "e": [1]], "f": nil, "h": true])
        #expect(original.applyingMergePatch(patch) == edited)
        #expect(try patch.jsonString() == #"{"a":{"b":{"g":3,"d":null},"e":[1]},"h":true,"f":null}"#)
        #expect(JSON.null.applyingMergePatch(["a": ["b": 1]]) == ["a": ["b": 1]])
        #expect(original.applyingMergePatch(["a": ["b": "flat"]]) == ["a": ["b": "flat", "e": [1, 2]], "f": "x"])
    }

    // MARK: - Decoding

    private struct Envelope: Codable {
        var payload: JSON
    }

    @Test func decodesAFiveHundredElevenLevelJSONValue() {
        let outcome = Locked<[Int]>([])
        let finished = onSmallStack {
            let coding = JSONCoding()
            let data = Data(Self.mixed(511).utf8)
            let wrapped = Data(#"{"payload":\#(Self.mixed(510))}"#.utf8)
            let value = (try? coding.decode(JSON.self, from: data)).map(Self.depth(of:)) ?? -1
            let payload = (try? coding.decode(Envelope.self, from: wrapped)).map { Self.depth(of: $0.payload) } ?? -1
            let encoded = (try? coding.decode(Envelope.self, from: wrapped)).flatMap { try? coding.encode($0) }
            outcome.withLock { $0 = [value, payload, encoded == wrapped ? 1 : 0] }
        }
        #expect(finished)
        #expect(outcome.withLock { $0 } == [511, 510, 1])
    }

    // MARK: - Error bodies

    @Test func readsFieldErrorsFiveHundredTwelveLevelsDown() {
        let outcome = Locked<[String: [String]]>([:])
        let finished = onSmallStack {
            let body = Data(Self.objects(511, key: "x", leaf: #"["too deep"]"#).utf8)
            let response = HTTPResponse(status: 400, headers: [:], body: body)
            outcome.withLock { $0 = ServerErrorDetails(response: response)?.fieldErrors ?? [:] }
        }
        #expect(finished)
        let field = Array(repeating: "x", count: 511).joined(separator: ".")
        #expect(outcome.withLock { $0 } == [field: ["too deep"]])
    }
}
