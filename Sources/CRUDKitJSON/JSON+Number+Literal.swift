import Foundation

extension JSON.Number {
    /// The text of a number that neither `Int64` nor `Double` holds exactly, such as `1234567890.123456789` or
    /// `18446744073709551615`, exactly as it was parsed or encoded.
    ///
    /// Only CRUDKit makes one (the parser, the encoder and `JSON.Number(_:)` from a string), so the text is
    /// always a valid JSON number. Two literals are `==` when their texts are the same; `JSON.Number` compares
    /// them by value (`1.50` equals `1.5`).
    public struct Literal: Sendable, Hashable, CustomStringConvertible {
        /// The JSON text of the number.
        public let text: String

        init(validText text: String) {
            self.text = text
        }

        /// The number's text.
        public var description: String { text }

        /// The value in canonical form, for equality between different spellings.
        var digits: JSONDecimalDigits { JSONDecimalDigits(text.utf8) }

        /// Appends the text to a writer's output.
        func write(to output: inout [UInt8]) {
            output.append(contentsOf: text.utf8)
        }
    }

    /// Reads a JSON number from its text, keeping every digit.
    ///
    /// ```swift
    /// JSON.Number("42")                    // .int(42)
    /// JSON.Number("0.5")                   // .double(0.5)
    /// JSON.Number("1234567890.123456789")  // .literal, written back as it is
    /// ```
    /// - Parameter text: A JSON number, without surrounding spaces.
    /// - Returns: `nil` when `text` is not a JSON number or is beyond the range of a `Double`.
    public init?(_ text: String) {
        guard let first = text.utf8.first, let last = text.utf8.last,
            first == UInt8(ascii: "-") || JSONDecimalDigits.isDigit(first), JSONDecimalDigits.isDigit(last),
            let json = try? JSON(string: text), case .number(let number) = json
        else { return nil }
        self = number
    }

    /// An exact number for any integer: ``int(_:)`` when it fits in `Int64`, otherwise its digits.
    /// - Parameter value: The integer, such as a `UInt64` above `Int64.max`.
    public init<I: BinaryInteger>(exactly value: I) {
        if let exact = Int64(exactly: value) {
            self = .int(exact)
        } else {
            self = JSON.Number(validText: String(value)) ?? .double(Double(value))
        }
    }

    /// The number that `text` (valid JSON number grammar) spells, in the case that holds it exactly: ``int(_:)``
    /// when it is an integer that fits in `Int64`, ``literal(_:)`` for any other integer notation, ``double(_:)``
    /// when the double is written back with the same value, else ``literal(_:)``. `nil` when it is beyond the range
    /// of a `Double`.
    init?(validText text: String) {
        let digits = JSONDecimalDigits(text.utf8)
        let integerNotation = !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }
        guard !digits.isZero else {
            if text.utf8.first == UInt8(ascii: "-") {
                self = .double(-0.0)
            } else {
                self = integerNotation ? .int(0) : .double(0.0)
            }
            return
        }
        guard let double = Double(text), double.isFinite else { return nil }
        if integerNotation {
            // Integer notation stays an integer: `100` is `.int(100)`, and `123000000000000000000000` keeps its
            // digits (as `1.23e+23` a Python or Ruby server would read a float and round it).
            if let integer = Int64(text) {
                self = .int(integer)
            } else {
                self = .literal(Literal(validText: text))
            }
            return
        }
        // Up to 15 significant digits a normal double always gives the same decimal back.
        if digits.count <= 15, double.isNormal {
            self = .double(double)
        } else if digits.count <= 17, double != 0, JSONDecimalDigits(double.description.utf8) == digits {
            // The shortest text of the double (what writing gives) has this value: `-7.682636537801366e+17`.
            self = .double(double)
        } else if digits.exponent >= 0, let integer = digits.integer(Int64.self) {
            // An integer the double would round, written with a fraction or exponent: `9007199254740993.0`.
            self = .int(integer)
        } else {
            self = .literal(Literal(validText: text))
        }
    }
}

/// The value of a JSON number text in canonical form — sign, significant digits without leading or trailing zeros,
/// and the power of ten of the last digit — so that `1.50`, `1.5` and `15e-1` compare equal.
package struct JSONDecimalDigits: Hashable {
    /// Whether the number is below zero (never for zero).
    private(set) var negative = false
    /// Significant ASCII digits, no leading or trailing zeros; empty for zero.
    private(set) var significand: [UInt8] = []
    /// value = significand × 10^exponent (0 for zero).
    private(set) var exponent = 0

    /// Reads a number in JSON grammar (also accepts `Double.description`'s `1e+20`).
    package init(_ text: some Collection<UInt8>) {
        var index = text.startIndex
        if index < text.endIndex, text[index] == UInt8(ascii: "-") {
            negative = true
            text.formIndex(after: &index)
        }
        var fractionDigits = 0
        var inFraction = false
        while index < text.endIndex {
            let byte = text[index]
            if Self.isDigit(byte) {
                if !(significand.isEmpty && byte == UInt8(ascii: "0")) { significand.append(byte) }
                if inFraction { fractionDigits += 1 }
            } else if byte == UInt8(ascii: ".") {
                inFraction = true
            } else {
                break
            }
            text.formIndex(after: &index)
        }
        var written = 0
        if index < text.endIndex, text[index] | 0x20 == UInt8(ascii: "e") {
            text.formIndex(after: &index)
            var exponentNegative = false
            if index < text.endIndex, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                exponentNegative = text[index] == UInt8(ascii: "-")
                text.formIndex(after: &index)
            }
            while index < text.endIndex, Self.isDigit(text[index]) {
                if written < 100_000_000 { written = written * 10 + Int(text[index] &- UInt8(ascii: "0")) }
                text.formIndex(after: &index)
            }
            if exponentNegative { written = -written }
        }
        var trailingZeros = 0
        while let last = significand.last, last == UInt8(ascii: "0") {
            significand.removeLast()
            trailingZeros += 1
        }
        if significand.isEmpty {
            negative = false
        } else {
            exponent = written - fractionDigits + trailingZeros
        }
    }

    var isZero: Bool { significand.isEmpty }

    /// The number of significant digits.
    var count: Int { significand.count }

    /// The value as an exact `I`, or `nil` when it has a fraction or does not fit.
    func integer<I: FixedWidthInteger>(_ type: I.Type) -> I? {
        if significand.isEmpty { return 0 }
        guard exponent >= 0, significand.count + exponent <= 40, !negative || I.isSigned else { return nil }
        var value: I = 0
        for digit in significand + repeatElement(UInt8(ascii: "0"), count: exponent) {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let step = I(digit &- UInt8(ascii: "0"))
            // Negative values are built downwards so that `I.min` fits.
            let (next, o2) =
                negative ? times10.subtractingReportingOverflow(step) : times10.addingReportingOverflow(step)
            guard !o1, !o2 else { return nil }
            value = next
        }
        return value
    }

    /// Whether `double` (positive), written as JSON writes it (its shortest text), has the value
    /// `mantissa` × 10^`power`: a check without allocating more than that text.
    static func writesBack(_ double: Double, as mantissa: UInt64, power: Int) -> Bool {
        var written: UInt64 = 0
        var writtenPower = 0
        var inFraction = false
        var utf8 = double.description.utf8.makeIterator()
        while let byte = utf8.next() {
            if isDigit(byte) {
                let (times10, o1) = written.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(UInt64(byte &- UInt8(ascii: "0")))
                guard !o1, !o2 else { return false }
                written = sum
                if inFraction { writtenPower -= 1 }
            } else if byte == UInt8(ascii: ".") {
                inFraction = true
            } else if byte | 0x20 == UInt8(ascii: "e") {
                var exponentNegative = false
                var exponent = 0
                while let byte = utf8.next() {
                    if byte == UInt8(ascii: "-") {
                        exponentNegative = true
                    } else if isDigit(byte) {
                        exponent = exponent * 10 + Int(byte &- UInt8(ascii: "0"))
                    }
                }
                writtenPower += exponentNegative ? -exponent : exponent
            } else {
                return false
            }
        }
        func normalized(_ value: UInt64, _ power: Int) -> (UInt64, Int) {
            var (value, power) = (value, power)
            while value != 0, value % 10 == 0 {
                value /= 10
                power += 1
            }
            return (value, power)
        }
        return normalized(written, writtenPower) == normalized(mantissa, power)
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
