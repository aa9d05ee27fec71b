import CRUDKitCore
import Foundation

extension CookieJar {
    /// What one `Set-Cookie` value says (RFC 6265 §5.2), before the jar decides whether to keep it.
    struct SetCookie: Equatable {
        var name: String
        var value: String
        /// The last non-empty `Domain`, lower-cased, without its leading dot and its trailing dot; `nil` for none.
        var domain: String?
        /// The last `Path` that starts with `/`; `nil` for none (the default path applies).
        var path: String?
        var secure = false
        var httpOnly = false
        /// When it expires, from `Max-Age` (which wins) or `Expires`; `nil` for a session cookie.
        var expires: Date?
    }

    /// The longest life a cookie is given: 400 days (RFC 6265bis §5.5), whatever `Max-Age` or `Expires` say.
    static let maximumLifetime: TimeInterval = 400 * 24 * 3600

    /// Parses one `Set-Cookie` value received at `now`; `nil` when it must be ignored: more than 4,096 bytes, a
    /// control character other than tab anywhere, no `=` in the name-value pair, or an empty name.
    static func parse(_ line: String, now: Date) -> SetCookie? {
        guard line.utf8.count <= maximumCookieSize, line.utf8.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) })
        else { return nil }
        var parts = line.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: "=") else { return nil }
        let name = trimmed(pair[..<equals])
        guard !name.isEmpty else { return nil }
        var cookie = SetCookie(name: String(name), value: String(trimmed(pair[pair.index(after: equals)...])))
        var maxAge: Date?
        var expires: Date?
        for attribute in parts {
            let equals = attribute.firstIndex(of: "=")
            let key = trimmed(attribute[..<(equals ?? attribute.endIndex)]).lowercased()
            let value = equals.map { trimmed(attribute[attribute.index(after: $0)...]) } ?? ""
            switch key {
            case "expires":
                if let date = parseDate(value) { expires = date }
            case "max-age":
                if let seconds = parseMaxAge(value) {
                    maxAge = seconds <= 0 ? .distantPast : now.addingTimeInterval(min(seconds, maximumLifetime))
                }
            case "domain":
                guard !value.isEmpty else { continue }
                // One leading dot is ignored (§5.2.3), and one trailing dot too: `Domain=com.` names the fully
                // qualified `com`, the same name as `com`, so it meets the same public-suffix rule. `Domain=.`
                // leaves nothing: a host-only cookie (§5.3 step 6). What is left keeps any other dot, and a name
                // with an empty label (`..com`) is refused in `accept`.
                var domain = value.hasPrefix(".") ? value.dropFirst() : value
                if domain.hasSuffix(".") { domain = domain.dropLast() }
                cookie.domain = domain.isEmpty ? nil : domain.lowercased()
            case "path":
                cookie.path = value.hasPrefix("/") ? String(value) : nil
            case "secure": cookie.secure = true
            case "httponly": cookie.httpOnly = true
            default: break
            }
        }
        if let date = maxAge ?? expires {
            cookie.expires = min(date, now.addingTimeInterval(maximumLifetime))
        }
        return cookie
    }

    /// `text` without spaces and tabs at either end.
    private static func trimmed(_ text: Substring) -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return text[start...last]
    }

    /// `Max-Age` seconds (§5.2.2): an optional `-` then digits; `nil` when it is not that.
    private static func parseMaxAge(_ text: Substring) -> TimeInterval? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        if text.hasPrefix("-") { return -1 }
        // Too many digits for an Int is a long time: the lifetime cap applies.
        return Int(digits).map(TimeInterval.init) ?? maximumLifetime
    }

    // MARK: - Combined fields

    /// Splits `value`, repeated `Set-Cookie` fields joined with commas, into one value per cookie: at each comma
    /// followed by a token and `=` (a comma inside an `Expires` date is followed by the day of the month instead).
    static func splitCombinedSetCookie(_ value: String) -> [String] {
        let bytes = Array(value.utf8)
        var lines: [String] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: ","), startsCookie(bytes, at: index + 1) {
                lines.append(String(decoding: bytes[start..<index], as: UTF8.self))
                start = index + 1
            }
            index += 1
        }
        lines.append(String(decoding: bytes[start...], as: UTF8.self))
        return lines.map { String(trimmed(Substring($0))) }.filter { !$0.isEmpty }
    }

    /// Whether `bytes` from `index` read as optional blanks, a token, optional blanks and `=`.
    private static func startsCookie(_ bytes: [UInt8], at index: Int) -> Bool {
        var index = index
        while index < bytes.count, bytes[index] == 32 || bytes[index] == 9 { index += 1 }
        let tokenStart = index
        while index < bytes.count, !" \t=;,".utf8.contains(bytes[index]) { index += 1 }
        guard index > tokenStart else { return false }
        while index < bytes.count, bytes[index] == 32 || bytes[index] == 9 { index += 1 }
        return index < bytes.count && bytes[index] == UInt8(ascii: "=")
    }

    // MARK: - Dates (§5.1.1)

    /// The date of an `Expires` attribute, read as RFC 6265 §5.1.1 says (every common date format); `nil` when
    /// it has no time, day, month or year, or one out of range.
    static func parseDate(_ text: Substring) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in text.utf8.split(whereSeparator: isDateDelimiter) {
            let token = Array(token)
            if time == nil, let found = parseTime(token) {
                time = found
            } else if day == nil, let found = leadingNumber(token, digits: 1...2) {
                day = found
            } else if month == nil, token.count >= 3, let found = monthNumber(token) {
                month = found
            } else if year == nil, let found = leadingNumber(token, digits: 2...4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59, day >= 1,
            day <= CivilCalendar.daysIn(month: month, year: year)
        else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        let seconds = Double(days) * 86_400 + Double(time.hour * 3600 + time.minute * 60 + time.second)
        return Date(timeIntervalSince1970: seconds)
    }

    private static func isDateDelimiter(_ byte: UInt8) -> Bool {
        byte == 9 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte) || (0x5B...0x60).contains(byte)
            || (0x7B...0x7E).contains(byte)
    }

    /// `1*digits` then, optionally, a non-digit and anything.
    private static func leadingNumber(_ token: [UInt8], digits: ClosedRange<Int>) -> Int? {
        let count = token.prefix { $0 >= 48 && $0 <= 57 }.count
        guard digits.contains(count) else { return nil }
        return token.prefix(count).reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    /// `hms-time`: three colon-separated numbers of one or two digits, then optionally a non-digit and anything.
    private static func parseTime(_ token: [UInt8]) -> (hour: Int, minute: Int, second: Int)? {
        var fields: [Int] = []
        var rest = token[...]
        for position in 0..<3 {
            let count = rest.prefix { $0 >= 48 && $0 <= 57 }.count
            guard (1...2).contains(count) else { return nil }
            fields.append(rest.prefix(count).reduce(0) { $0 * 10 + Int($1 - 48) })
            rest = rest.dropFirst(count)
            if position < 2 {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                rest = rest.dropFirst()
            }
        }
        return (fields[0], fields[1], fields[2])
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func monthNumber(_ token: [UInt8]) -> Int? {
        let prefix = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        return months.firstIndex(of: prefix).map { $0 + 1 }
    }
}
