import CRUDKit
import Foundation

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the date format of `Last-Modified` and `If-Modified-Since`,
/// written without `DateFormatter` (which is neither cheap nor `Sendable`) and read by the library's own reader.
enum HTTPDate {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `date` as an IMF-fixdate, seconds truncated.
    static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let (dayNumber, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let day = secondOfDay < 0 ? dayNumber - 1 : dayNumber
        let second = secondOfDay < 0 ? secondOfDay + 86_400 : secondOfDay
        let (year, month, dayOfMonth) = CivilCalendar.date(days: day)
        let weekday = days[((day % 7) + 7) % 7]
        let two = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(dayOfMonth)) \(months[month - 1]) \(year) "
            + "\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60)) GMT"
    }

    /// The date an HTTP date names (IMF-fixdate, RFC 850 or asctime, as RFC 9110 asks recipients to accept), or
    /// `nil` when `text` is none of them. The library's own reader, shared with `Retry-After`.
    static func parse(_ text: String) -> Date? {
        HTTPDateParser.date(text)
    }
}

extension HTTPDate {
    /// `date` as an ISO 8601 UTC time with `fractionDigits` fraction digits, truncated (`2026-11-27T10:13:44.517Z`).
    static func iso8601(_ date: Date, fractionDigits: Int) -> String {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, (0..<253_402_300_800).contains(interval) else { return "1970-01-01T00:00:00Z" }
        let whole = interval.rounded(.down)
        let imf = format(Date(timeIntervalSince1970: whole))  // "Sun, 06 Nov 1994 08:49:37 GMT"
        let parts = imf.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, let month = months.firstIndex(of: String(parts[2])) else { return imf }
        let year = String(parts[3])
        let paddedYear = String(repeating: "0", count: max(0, 4 - year.count)) + year
        var text = "\(paddedYear)-\(month < 9 ? "0" : "")\(month + 1)-\(parts[1])T\(parts[4])"
        let digits = min(max(fractionDigits, 0), 9)
        if digits > 0 {
            var scale = 1.0
            for _ in 0..<digits { scale *= 10 }
            let fraction = Int(((interval - whole) * scale).rounded(.down))
            let value = String(min(max(fraction, 0), Int(scale) - 1))
            text += "." + String(repeating: "0", count: digits - value.count) + value
        }
        return text + "Z"
    }
}
