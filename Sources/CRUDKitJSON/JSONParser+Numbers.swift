import Foundation

/// Numbers: exact `Int64` when the text is an integer that fits, the correctly rounded `Double` when it is written
/// back with the same value, otherwise the text itself (see `JSON.Number`).
extension JSONParser {
    mutating func parseNumber() throws(JSONError) -> JSON.Number {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count else { throw unexpected("a digit") }
        var mantissa: UInt64 = 0
        var overflowed = false
        @inline(__always) func accumulate(_ byte: UInt8) {
            guard !overflowed else { return }
            let (times10, o1) = mantissa.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(byte &- UInt8(ascii: "0")))
            if o1 || o2 { overflowed = true } else { mantissa = sum }
        }
        let first = bytes[index]
        if first == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, Self.isDigit(bytes[index]) { throw fail(.leadingZero, at: index - 1) }
        } else if Self.isDigit(first) {
            while index < bytes.count, Self.isDigit(bytes[index]) {
                accumulate(bytes[index])
                index += 1
            }
        } else if first == UInt8(ascii: "I") {
            throw fail(.nonFiniteLiteral, at: start)
        } else {
            throw unexpected("a digit")
        }
        var isInteger = true
        var fractionDigits = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw unexpected("a digit after '.'") }
            while index < bytes.count, Self.isDigit(bytes[index]) {
                accumulate(bytes[index])
                fractionDigits += 1
                index += 1
            }
        }
        var exponent = 0
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw unexpected("a digit in the exponent") }
            while index < bytes.count, Self.isDigit(bytes[index]) {
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        if isInteger, !overflowed {
            if !negative, mantissa <= UInt64(Int64.max) { return .int(Int64(mantissa)) }
            if negative, mantissa != 0, mantissa <= UInt64(Int64.max) + 1 {
                return .int(Int64(bitPattern: 0 &- mantissa))
            }
        }
        // Exact fast path (Clinger): both the mantissa and the power of ten are exact doubles. With at most 15
        // significant digits the double is written back with the same value; with 16 (such as
        // `0.1234567890123456`) that is checked against the double's shortest text.
        let power = exponent - fractionDigits
        if !overflowed, mantissa <= 1 << 53, (-22...22).contains(power) {
            var value = Double(mantissa)
            value = power < 0 ? value / powersOfTen[-power] : value * powersOfTen[power]
            if mantissa < 1_000_000_000_000_000 || JSONDecimalDigits.writesBack(value, as: mantissa, power: power) {
                return .double(negative ? -value : value)
            }
        }
        // Long, huge or tiny numbers: the case that keeps the value exactly (see `JSON.Number`).
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let number = JSON.Number(validText: text) else { throw fail(.numberOutOfRange, at: start) }
        return number
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}

private let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]
