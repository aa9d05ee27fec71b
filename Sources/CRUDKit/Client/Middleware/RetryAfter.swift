import Foundation

/// Reads a `Retry-After` header: a number of seconds (`120`) or an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`).
package enum RetryAfter {
    /// The wait the header asks for, measured from `now`; `nil` when the value is neither form. A date in the past
    /// gives `.zero`.
    package static func delay(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard let seconds = Int64(text) else { return nil }
            return .seconds(seconds)
        }
        guard let date = HTTPDateParser.date(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? .milliseconds(Int64((seconds * 1000).rounded(.up))) : .zero
    }
}
