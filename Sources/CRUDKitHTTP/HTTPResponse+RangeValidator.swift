import CRUDKitCore

/// The validator a resumed request may send as `If-Range` and must find again on the `206` that continues the bytes
/// kept (RFC 9110 §13.1.5, §15.3.7.3): a strong entity tag, or a `Last-Modified` date that is strong by §8.8.2.2.
package enum RangeValidator: Sendable, Hashable {
    /// A strong `ETag`, quoted, compared byte for byte.
    case entityTag(String)
    /// A `Last-Modified` date from an answer without an `ETag` whose `Date` is at least one second later.
    case lastModified(String)

    /// The value sent as `If-Range`.
    package var ifRange: String {
        switch self {
        case .entityTag(let tag): tag
        case .lastModified(let date): date
        }
    }
}

extension HTTPResponse {
    /// What `If-Range` may carry to continue this answer's body: its strong `ETag`; without an `ETag`, its
    /// `Last-Modified` when that is a strong validator (the answer's `Date` is at least one second later, RFC 9110
    /// §8.8.2.2); otherwise `nil`. A weak `ETag` (`W/"…"`) gives `nil`: it cannot prove two answers byte-identical.
    package var rangeValidator: RangeValidator? {
        if let tag = headers["ETag"] {
            return Self.isStrongEntityTag(tag) ? .entityTag(tag) : nil
        }
        guard let modified = headers["Last-Modified"], let date = headers["Date"],
            let modifiedSeconds = IMFFixdate.seconds(modified), let dateSeconds = IMFFixdate.seconds(date),
            dateSeconds - modifiedSeconds >= 1
        else { return nil }
        return .lastModified(modified)
    }

    /// Whether `tag` is a strong entity tag: `"…"` with no `W/` prefix and no quote or control byte inside.
    static func isStrongEntityTag(_ tag: String) -> Bool {
        let bytes = Array(tag.utf8)
        guard bytes.count >= 2, bytes.first == 0x22, bytes.last == 0x22 else { return false }
        return bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || ($0 >= 0x23 && $0 != 0x7F) }
    }
}

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
        return daysSince1970(year: year, month: Int64(month) + 1, day: day) * 86_400 + hour * 3_600 + minute * 60
            + second
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

    /// Days from 1970-01-01 to the given civil date (proleptic Gregorian calendar).
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shifted = month <= 2 ? year - 1 : year
        let era = shifted / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
