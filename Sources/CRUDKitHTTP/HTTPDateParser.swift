import Foundation

/// Reads an HTTP date (`Retry-After`, `Last-Modified`, `Date`) in any of the three forms RFC 9110 §5.6.7 asks a
/// recipient to accept: IMF-fixdate, RFC 850 and asctime.
package enum HTTPDateParser {
    /// The date `text` names, or `nil` when it is none of the three forms.
    package static func date(_ text: String) -> Date? {
        if let seconds = IMFFixdate.seconds(text) { return Date(timeIntervalSince1970: TimeInterval(seconds)) }
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",
        "EEEE, dd-MMM-yy HH:mm:ss zzz",
        "EEE MMM d HH:mm:ss yyyy",
    ]
}
