import Foundation

extension JSON.Number {
    /// The text of a number that neither `Int64` nor `Double` holds exactly, such as `1234567890.123456789` or
    /// `18446744073709551615`, exactly as it was parsed or encoded.
    ///
    /// Only CRUDKit makes one (the parser, the encoder and `JSON.Number(_:)` from a string), so the text is
    /// always a valid JSON number. Two literals are `==` when their texts are the same; `JSON.Number` compares
    /// them by value (`1.50` equals `1.5`, and `100000000000000000000` equals `.double(1e20)`).
    ///
    /// Memory: a literal keeps its text as a `String`, one allocation for a text of more than 15 bytes. A document
    /// of 1,000,000 long literals (27 MB) takes about 0.9 s to parse and 134 MB, against 0.08 s and 10 MB for
    /// 1,000,000 short doubles (9 MB).
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

        /// The `Double` whose value is exactly this literal's (`100000000000000000000` is `1e20`), or `nil` when no
        /// double has it (`0.1000000000000000000001`, `18446744073709551615`).
        var exactDouble: Double? {
            guard let double = Double(text), double.isFinite else { return nil }
            // A double that has the value is the nearest one, which is what `Double(_:)` reads.
            return digits.isExactly(double) ? double : nil
        }

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
    /// The digits of the power of ten (sign first, no leading zeros) when it is ±10¹⁸ or beyond, which ``exponent``
    /// does not hold exactly: ``exponent`` is then ±2⁶⁰ (so every range check refuses the number). The power is the
    /// value's, not the written exponent's (what the fraction and trailing zeros add is added), so that two
    /// spellings of one value are equal (`1e-1000000000000000000` and `10e-1000000000000000001`); empty otherwise.
    private(set) var hugeExponent: [UInt8] = []

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
        var hugeDigits: [UInt8] = []
        if index < text.endIndex, text[index] | 0x20 == UInt8(ascii: "e") {
            text.formIndex(after: &index)
            var exponentNegative = false
            if index < text.endIndex, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                exponentNegative = text[index] == UInt8(ascii: "-")
                text.formIndex(after: &index)
            }
            var digits: [UInt8] = []
            while index < text.endIndex, Self.isDigit(text[index]) {
                let digit = text[index]
                if !(digits.isEmpty && digit == UInt8(ascii: "0")) { digits.append(digit) }
                if digits.count <= 18 { written = written * 10 + Int(digit &- UInt8(ascii: "0")) }
                text.formIndex(after: &index)
            }
            if digits.count > 18 {
                // Beyond what `exponent` holds with room for the adjustment below: kept as its digits.
                hugeDigits = [exponentNegative ? UInt8(ascii: "-") : UInt8(ascii: "+")] + digits
                written = exponentNegative ? -(1 << 60) : 1 << 60
            } else if exponentNegative {
                written = -written
            }
        }
        var trailingZeros = 0
        while let last = significand.last, last == UInt8(ascii: "0") {
            significand.removeLast()
            trailingZeros += 1
        }
        if significand.isEmpty {
            negative = false
        } else if !hugeDigits.isEmpty {
            // The written exponent plus what the fraction and trailing zeros add, in decimal digits: far smaller than
            // the exponent (they count characters of the text), so the sign stays the exponent's.
            let power = Self.adding(
                hugeDigits[0] == UInt8(ascii: "-") ? fractionDigits - trailingZeros : trailingZeros - fractionDigits,
                to: Array(hugeDigits.dropFirst()))
            setPower(negative: hugeDigits[0] == UInt8(ascii: "-"), digits: power)
        } else {
            let power = written - fractionDigits + trailingZeros
            if power.magnitude < 1_000_000_000_000_000_000 {
                exponent = power
            } else {
                setPower(negative: power < 0, digits: Array(String(power.magnitude).utf8))
            }
        }
    }

    /// Sets the power of ten: in ``exponent`` below 10¹⁸, else as ``hugeExponent`` digits.
    private mutating func setPower(negative: Bool, digits: [UInt8]) {
        if digits.count <= 18, let magnitude = Int(String(decoding: digits, as: UTF8.self)) {
            exponent = negative ? -magnitude : magnitude
            hugeExponent = []
        } else {
            exponent = negative ? -(1 << 60) : 1 << 60
            hugeExponent = [negative ? UInt8(ascii: "-") : UInt8(ascii: "+")] + digits
        }
    }

    /// The ASCII digits of `digits` (a magnitude, no leading zeros) plus `delta`, whose magnitude is smaller.
    private static func adding(_ delta: Int, to digits: [UInt8]) -> [UInt8] {
        var values = digits.map { Int($0 &- UInt8(ascii: "0")) }
        var carry = delta
        var index = values.count - 1
        while carry != 0, index >= 0 {
            let sum = values[index] + carry % 10
            carry /= 10
            if sum < 0 {
                values[index] = sum + 10
                carry -= 1
            } else {
                values[index] = sum % 10
                carry += sum / 10
            }
            index -= 1
        }
        var result = carry > 0 ? Array(String(carry).utf8) : []
        result += values.map { UInt8(ascii: "0") + UInt8($0) }
        guard let first = result.firstIndex(where: { $0 != UInt8(ascii: "0") }) else { return [UInt8(ascii: "0")] }
        return Array(result[first...])
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

    /// Whether `double`'s exact binary value is this number: `1e20` is `100000000000000000000`, `0.5` is `5e-1`,
    /// but `0.1` is `0.1000000000000000055511151231257827021181583404541015625`, not `1e-1`.
    ///
    /// - Complexity: O(1) for most numbers: the power of ten must match the double's power of two first (a double
    ///   with a fraction has exactly as many decimal places as its power of two is below zero); then at most a
    ///   few thousand limb operations for the digits of the double (up to 767 of them).
    func isExactly(_ double: Double) -> Bool {
        guard double.isFinite else { return false }
        if double == 0 { return significand.isEmpty }
        guard !significand.isEmpty, negative == (double < 0) else { return false }
        let magnitude = double.magnitude
        // magnitude = mantissa × 2^power with an odd mantissa.
        var mantissa = magnitude.significandBitPattern
        var power: Int
        if magnitude.exponentBitPattern == 0 {
            power = -1074
        } else {
            mantissa |= 1 << 52
            power = Int(magnitude.exponentBitPattern) - 1075
        }
        let zeros = mantissa.trailingZeroBitCount
        mantissa >>= zeros
        power += zeros
        if power >= 0 {
            // An integer: no decimal places, the same digits as mantissa × 2^power.
            guard exponent >= 0, significand.count + exponent <= 330 else { return false }
            let written = Self.decimalDigits(mantissa, times: 2, power: power)
            return written.count == significand.count + exponent && written.starts(with: significand)
                && written.dropFirst(significand.count).allSatisfy { $0 == UInt8(ascii: "0") }
        }
        // mantissa × 2^power = mantissa × 5^-power × 10^power, whose last digit is odd: exactly -power decimal places.
        guard exponent == power, significand.count <= 800 else { return false }
        return Self.decimalDigits(mantissa, times: 5, power: -power) == significand
    }

    /// The ASCII decimal digits of `value` × `base`^`power` (`base` 2 or 5), without leading zeros.
    private static func decimalDigits(_ value: UInt64, times base: UInt64, power: Int) -> [UInt8] {
        // Little-endian limbs of nine decimal digits each.
        let limbBase: UInt64 = 1_000_000_000
        var limbs: [UInt64] = [value % limbBase, (value / limbBase) % limbBase, value / limbBase / limbBase]
        // Multiply by base^step at a time, a factor below 2^32 so that no limb product overflows.
        let step = base == 2 ? 31 : 13
        var remaining = power
        while remaining > 0 {
            let count = min(step, remaining)
            remaining -= count
            var factor: UInt64 = 1
            for _ in 0..<count { factor *= base }
            var carry: UInt64 = 0
            for index in limbs.indices {
                let product = limbs[index] * factor + carry
                limbs[index] = product % limbBase
                carry = product / limbBase
            }
            while carry > 0 {
                limbs.append(carry % limbBase)
                carry /= limbBase
            }
        }
        while limbs.count > 1, limbs.last == 0 { limbs.removeLast() }
        var digits = Array(String(limbs.last ?? 0).utf8)
        for limb in limbs.dropLast().reversed() {
            let text = Array(String(limb).utf8)
            digits += repeatElement(UInt8(ascii: "0"), count: 9 - text.count)
            digits += text
        }
        return digits
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
