import CRUDKitCore

/// The preferred HTTP date format (RFC 9110 §5.6.7, `Sun, 06 Nov 1994 08:49:37 GMT`), read without Foundation
/// formatters. The two obsolete formats are not read: a date that cannot be compared is never a strong validator.
package enum IMFFixdate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since 1970 of an IMF-fixdate, or `nil` when `text` is not one.
    package static func seconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == 0x2C, bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
            bytes[16] == 0x20, bytes[19] == 0x3A, bytes[22] == 0x3A, bytes[25] == 0x20,
            String(decoding: bytes[26...], as: UTF8.self) == "GMT",
            let day = number(bytes[5..<7]), let year = number(bytes[12..<16]), let hour = number(bytes[17..<19]),
            let minute = number(bytes[20..<22]), let second = number(bytes[23..<25]),
            let month = months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self)),
            (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = CivilCalendar.days(year: Int(year), month: month + 1, day: Int(day))
        return Int64(days) * 86_400 + hour * 3_600 + minute * 60 + second
    }

    /// The value of ASCII digits (at most four here, so no overflow), or `nil` when one is not a digit.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        for byte in digits {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        return value
    }
}
