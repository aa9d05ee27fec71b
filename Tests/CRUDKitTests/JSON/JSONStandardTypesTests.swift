import Foundation
import Testing

@testable import CRUDKitJSON

/// Every standard type JSON writes reads back, through the one generic path (`convert`, `required`), and a number
/// that does not fit the type is an error naming where it was, never a crash or a changed value.
@Suite struct JSONStandardTypesTests {
    /// `value` written with `JSON(_:)`, sent as text, parsed and read back as its own type.
    private func roundTrip<T: JSONReadable & JSONWritable>(_ value: T) throws -> T {
        try JSON(data: JSON(value).data()).convert(T.self)
    }

    @Test func everyWritableStandardTypeReadsBack() throws {
        #expect(try roundTrip(Int.max) == .max)
        #expect(try roundTrip(Int32.min) == .min)
        #expect(try roundTrip(Int32.max) == .max)
        #expect(try roundTrip(Int64.min) == .min)
        #expect(try roundTrip(UInt.max) == .max)
        #expect(try roundTrip(UInt64.max) == .max)
        #expect(try roundTrip(Float(0.1)) == Float(0.1))
        #expect(try roundTrip(Float.greatestFiniteMagnitude) == .greatestFiniteMagnitude)
        #expect(try roundTrip(Float.leastNonzeroMagnitude) == .leastNonzeroMagnitude)
        #expect(try roundTrip(-Float.leastNormalMagnitude) == -.leastNormalMagnitude)
        #expect(try roundTrip(Double.greatestFiniteMagnitude) == .greatestFiniteMagnitude)
        let amount = try #require(Decimal(string: "1234567890.123456789"))
        #expect(try roundTrip(amount) == amount)
        #expect(try roundTrip("Ada") == "Ada")
        #expect(try roundTrip(true))
        #expect(try roundTrip(Date(timeIntervalSince1970: 0.25)) == Date(timeIntervalSince1970: 0.25))
        let url = try #require(URL(string: "https://x.dev/a?b=1"))
        #expect(try roundTrip(url) == url)
        let uuid = UUID()
        #expect(try roundTrip(uuid) == uuid)
        #expect(try roundTrip(JSON(["a": 1])) == ["a": 1])
        #expect(try roundTrip(JSON.Object(["a": JSON(1)])) == JSON.Object(["a": JSON(1)]))
        #expect(try roundTrip([Int32(1), .max]) == [1, .max])
        #expect(try roundTrip(["b": Float(1.5), "a": -2]) == ["a": -2, "b": 1.5])
        #expect(try roundTrip(["x": [UInt(3)]] as [String: [UInt]]) == ["x": [3]])
        #expect(try roundTrip([UInt?.none, 4]) == [nil, 4])
        #expect(try roundTrip(Int32?.none) == nil)
    }

    @Test(arguments: [
        "2147483648", "-2147483649", "9223372036854775808", "1.5", "1e10", "\"1\"", "true",
    ])
    func anInt32ThatDoesNotFitIsAnError(text: String) throws {
        let json = try JSON(string: #"{"port": \#(text)}"#)
        let found = try JSON(string: text).kindDescription
        #expect(throws: JSONMappingError(keyPath: "port", expected: "Int32", found: found)) {
            try json.required("port", as: Int32.self)
        }
    }

    @Test(arguments: ["-1", "18446744073709551616", "0.5", "-0.5", "1e20"])
    func aUIntThatDoesNotFitIsAnError(text: String) throws {
        let json = try JSON(string: #"{"size": \#(text)}"#)
        #expect(throws: JSONMappingError.self) { try json.required("size", as: UInt.self) }
        #expect(throws: JSONMappingError.self) { try json.convert(UInt.self, at: "size") }
    }

    @Test(arguments: ["1e39", "3.41e38", "-3.5e38", "1e-50", "-1e-46", "\"1.5\""])
    func aFloatThatDoesNotFitIsAnError(text: String) throws {
        let json = try JSON(string: #"{"ratio": \#(text)}"#)
        #expect(throws: JSONMappingError.self) { try json.required("ratio", as: Float.self) }
    }

    @Test func aFloatReadsTheNearestValueInItsRange() throws {
        let json = try JSON(string: #"{"a": 3.4028235e38, "b": 0.1, "c": 0, "d": -0.0, "e": 1e-45, "f": 16777217}"#)
        #expect(try json.required("a", as: Float.self) == .greatestFiniteMagnitude)
        #expect(try json.required("b", as: Float.self) == 0.1)
        #expect(try json.required("c", as: Float.self) == 0)
        #expect(try json.required("d", as: Float.self) == 0)
        #expect(try json.required("e", as: Float.self) == .leastNonzeroMagnitude)
        #expect(try json.required("f", as: Float.self) == 16_777_216)
    }

    @Test func aNonFiniteDoubleIsAnErrorNotInfinity() throws {
        // The parser refuses `1e400`; a value built in code can still hold infinity.
        let json = JSON(["big": JSON(Double.infinity), "small": JSON(-Double.infinity)])
        #expect(throws: JSONMappingError.self) { try json.required("big", as: Double.self) }
        #expect(throws: JSONMappingError.self) { try json.required("small", as: Double.self) }
    }

    @Test func aDictionaryNamesTheKeyThatFails() throws {
        let json = try JSON(string: #"{"scores": {"ada": 1.5, "grace": "high"}}"#)
        #expect(
            throws: JSONMappingError(keyPath: "scores.grace", expected: "Float", found: JSON("high").kindDescription)
        ) {
            try json.required("scores", as: [String: Float].self)
        }
        #expect(throws: JSONMappingError(keyPath: "scores", expected: "an object", found: "an array of 0 elements")) {
            try JSON(["scores": JSON([JSON]())]).required("scores", as: [String: Int].self)
        }
        let fine = try JSON(string: #"{"scores": {"ada": 1.5, "grace": 2}}"#)
        #expect(try fine.required("scores", as: [String: Float].self) == ["ada": 1.5, "grace": 2])
        #expect(try fine.optional("missing", as: [String: Float].self) == nil)
    }

    @Test func anArrayOfInt32NamesTheIndexThatFails() throws {
        let json = try JSON(string: #"{"ports": [80, 443, 2147483648]}"#)
        let found = try JSON(string: "2147483648").kindDescription
        #expect(throws: JSONMappingError(keyPath: "ports[2]", expected: "Int32", found: found)) {
            try json.required("ports", as: [Int32].self)
        }
    }
}
