import Foundation

/// Reads and writes ISO-8601 internet timestamps (RFC 3339) without a `DateFormatter`: fast, thread-safe and
/// exact.
///
/// Reading accepts `2024-05-01T12:30:00Z`, `2024-05-01T12:30:00.250Z` (any number of fraction digits) and
/// offsets such as `+02:00`, `-0530` or `+02`. Writing always uses UTC, with as many fraction digits (3, 6 or 9) as
/// the date holds (`2024-05-01T12:30:00.250Z`, `2024-05-01T12:30:00.123456Z`), none for a whole second.
///
/// Reading also accepts what RFC 3339 allows beyond that:
/// - one space instead of the `T` (§5.6: `2024-05-01 12:30:00+00:00`, as PostgreSQL and Python's `str(datetime)`
///   write it); an offset is still required, so a local time is never guessed;
/// - a leap second, `23:59:60` UTC on the last day of a month (§5.7: `2016-12-31T23:59:60Z`, or
///   `2017-01-01T08:59:60+09:00` for the same instant). `Date` counts no leap seconds, so it becomes the next
///   second, `00:00:00` of the next day (a fraction kept: `:60.5` is `00:00:00.5`), as PostgreSQL reads it; a
///   second of 60 at any other time is refused.
package enum ISO8601Timestamp {
    /// The date a timestamp names, or `nil` when the text is not an ISO-8601 internet timestamp.
    package static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
                index += 1
            }
            return value
        }
        func expect(_ allowed: UInt8...) -> Bool {
            guard index < bytes.count, allowed.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
            let day = number(2), expect(UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")),
            let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2), expect(UInt8(ascii: ":")),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24,
            minute < 60, second <= 60
        else { return nil }
        var fraction = 0.0
        if expect(UInt8(ascii: ".")) {
            var value = 0
            var scale = 1
            var digits = 0
            while index < bytes.count, (48...57).contains(bytes[index]) {
                if digits < 9 {
                    value = value * 10 + Int(bytes[index] - 48)
                    scale *= 10
                }
                digits += 1
                index += 1
            }
            fraction = Double(value) / Double(scale)
            guard digits > 0 else { return nil }
        }
        var offset = 0
        if expect(UInt8(ascii: "Z"), UInt8(ascii: "z")) {
            offset = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2), hours < 24 else { return nil }
            var minutes = 0
            if index < bytes.count {
                _ = expect(UInt8(ascii: ":"))
                guard let value = number(2), value < 60 else { return nil }
                minutes = value
            }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        if second == 60 && !isLeapSecond(seconds - 1) { return nil }
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Whether the second after `second` (seconds since 1970, UTC) may be a leap second: `second` is 23:59:59 UTC on
    /// the last day of a month (RFC 3339 §5.7).
    private static func isLeapSecond(_ second: Int) -> Bool {
        let days = second >= 0 ? second / 86_400 : (second - 86_399) / 86_400
        guard second - days * 86_400 == 86_399 else { return false }
        let (year, month, day) = civil(fromDays: days)
        return day == daysIn(month: month, year: year)
    }

    /// The first and last whole seconds a four-digit year can name: 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
    private static let representable: ClosedRange<Double> = -62_167_219_200...253_402_300_799

    /// The timestamp for a date, in UTC: no fraction for a whole second, otherwise the fewest of 3, 6 or 9 fraction
    /// digits that read back as the same date (to within the one step of its `Double`), so a date read from
    /// `…13.123456Z` (Django, Postgres) is written back as `…13.123456Z`, not `…13.123Z`, and one read from
    /// `…13.250Z` as `…13.250Z`. `nil` for a date outside the years 0000–9999 or not finite.
    package static func string(from date: Date) -> String? {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, abs(interval) < 1e12 else { return nil }
        let whole = interval.rounded(.down)
        let nanoseconds = Int(((interval - whole) * 1e9).rounded())
        let step = abs(date.timeIntervalSinceReferenceDate).ulp
        for digits in [0, 3, 6] {
            let unit = digits == 0 ? 1_000_000_000 : digits == 3 ? 1_000_000 : 1000
            let (seconds, fraction) = carried(whole, (nanoseconds + unit / 2) / unit * unit)
            guard representable.contains(seconds) else { continue }
            // The date the text would be read back as, computed as `date(from:)` computes it (without writing and
            // reading the text: the fraction's digits as an integer over their scale).
            let scale = 1_000_000_000 / unit
            let back = Date(timeIntervalSince1970: seconds + Double(fraction / unit) / Double(scale))
            if abs(back.timeIntervalSince(date)) <= step { return format(seconds, fraction, digits: digits) }
        }
        let (seconds, fraction) = carried(whole, nanoseconds)
        guard representable.contains(seconds) else { return nil }
        return format(seconds, fraction, digits: 9)
    }

    /// `whole` seconds and `nanoseconds` more, with a full second of nanoseconds carried into the seconds.
    private static func carried(_ whole: Double, _ nanoseconds: Int) -> (seconds: Double, nanoseconds: Int) {
        nanoseconds >= 1_000_000_000 ? (whole + 1, nanoseconds - 1_000_000_000) : (whole, nanoseconds)
    }

    /// `seconds` since 1970 (whole, within ``representable``) and `nanoseconds` more (less than a second), with
    /// `digits` fraction digits (0, 3, 6 or 9), written straight into the string's bytes.
    private static func format(_ seconds: Double, _ nanoseconds: Int, digits: Int) -> String {
        let total = Int(seconds)
        var days = total / 86_400
        var secondsOfDay = total % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        let length = 20 + (digits > 0 ? digits + 1 : 0)
        return String(unsafeUninitializedCapacity: length) { buffer in
            var position = 0
            func put(_ value: Int, _ width: Int) {
                var value = value
                var offset = width
                while offset > 0 {
                    offset -= 1
                    buffer[position + offset] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                position += width
            }
            func put(_ byte: UInt8) {
                buffer[position] = byte
                position += 1
            }
            put(year, 4)
            put(UInt8(ascii: "-"))
            put(month, 2)
            put(UInt8(ascii: "-"))
            put(day, 2)
            put(UInt8(ascii: "T"))
            put(secondsOfDay / 3600, 2)
            put(UInt8(ascii: ":"))
            put(secondsOfDay / 60 % 60, 2)
            put(UInt8(ascii: ":"))
            put(secondsOfDay % 60, 2)
            if digits > 0 {
                put(UInt8(ascii: "."))
                put(nanoseconds / (digits == 3 ? 1_000_000 : digits == 6 ? 1000 : 1), digits)
            }
            put(UInt8(ascii: "Z"))
            return position
        }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01.
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
