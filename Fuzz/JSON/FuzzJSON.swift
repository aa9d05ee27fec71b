// libFuzzer entry point for CRUDKit's JSON parser and writer (built by .ci/fuzz-json.sh with
// `swiftc -sanitize=fuzzer,address`, linked with the CRUDKitJSON module alone).
//
// Any input may be rejected with a JSONError; what must never happen is a crash, a hang, a leak, or a value
// that does not survive writing and parsing again.
import CRUDKitJSON
import Foundation

private struct Sample: Decodable {
    var id: Int?
    var name: String?
    var tags: [String]?
    var createdAt: Date?
    var nested: [String: JSON]?
}

/// libFuzzer calls this with each input; returning 0 means "keep going".
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let value: JSON
    do {
        value = try JSON(bytes: bytes)
    } catch let error as JSONError {
        precondition(error.offset >= 0 && error.offset <= count, "error offset out of range: \(error)")
        precondition(error.line >= 1 && error.column >= 1, "bad position: \(error)")
        return 0
    } catch {
        preconditionFailure("unexpected error type: \(error)")
    }
    // Whatever parses writes back, and reads back as the same value, in every layout.
    for options: JSON.WritingOptions in [[], [.prettyPrinted, .sortedKeys]] {
        guard let written = try? value.bytes(options: options) else {
            preconditionFailure("a parsed value could not be written")
        }
        guard let again = try? JSON(bytes: written) else { preconditionFailure("written JSON did not parse") }
        precondition(again == value, "round trip changed the value")
    }
    _ = value.description
    _ = value[path: "a.b[0].c"]
    _ = value.diff(from: ["a": 1])
    _ = try? JSONCoding.default.decode(Sample.self, from: value)
    _ = try? JSONCoding.default.decode([Sample].self, from: value)
    return 0
}
