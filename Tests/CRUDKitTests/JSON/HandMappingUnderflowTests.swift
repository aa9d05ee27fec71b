import Foundation
import Testing

@testable import CRUDKitJSON

/// A hand mapping (`json.required`, `convert`) reads a number as the Codable path does: a non-zero number too small
/// for a `Double` (`1e-400`) is refused, not read as zero. Before, `Double` and `Float` read it as `0` — and a model
/// saved back sent `0` for a value the user never touched — while `JSONCoding` refused the same document.
@Suite struct HandMappingUnderflowTests {
    private struct Box<Value: Codable>: Codable {
        var value: Value
    }

    @Test(arguments: ["1e-400", "-2e-330", "0.1e-323"])
    func aNumberBelowEveryDoubleIsRefused(text: String) throws {
        let json = try JSON(string: #"{"value":\#(text)}"#)
        #expect(throws: JSONMappingError.self) { _ = try json.required("value", as: Double.self) }
        #expect(throws: JSONMappingError.self) { _ = try json.required("value", as: Float.self) }
        // As the Codable path refuses it.
        #expect(throws: DecodingError.self) { try JSONCoding.plain.decode(Box<Double>.self, from: json) }
    }

    @Test(arguments: ["0", "-0", "0.0", "0e-400", "-0.000e5"])
    func zeroIsStillZero(text: String) throws {
        let json = try JSON(string: #"{"value":\#(text)}"#)
        #expect(try json.required("value", as: Double.self) == 0)
        #expect(try json.required("value", as: Float.self) == 0)
    }

    @Test func theSmallestDoublesAndFloatsStillRead() throws {
        let json = try JSON(string: #"{"d":4.9e-324,"f":1e-45,"g":1e-320}"#)
        #expect(try json.required("d", as: Double.self) == .leastNonzeroMagnitude)
        #expect(try json.required("f", as: Float.self) == .leastNonzeroMagnitude)
        #expect(try json.required("g", as: Double.self) == Double("1e-320"))
    }
}
