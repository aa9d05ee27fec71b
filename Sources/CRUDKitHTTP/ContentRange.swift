import CRUDKitCore

/// A `Content-Range: bytes <first>-<last>/<complete length or *>` value (RFC 9110 §14.4), read strictly: digits
/// only, `first ≤ last`, `last < complete length` when known; every number within `Int64`, so nothing computed from
/// it can overflow unchecked.
package struct ContentRange: Sendable, Hashable {
    /// The first byte position.
    package var first: Int64
    /// The last byte position (inclusive).
    package var last: Int64
    /// The complete length of the representation, `nil` for `*`.
    package var total: Int64?

    /// Reads `value`; `nil` when it is not a satisfied byte range.
    package init?(_ value: String) {
        guard value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6)
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.digits(bounds[0]), let last = Self.digits(bounds[1]), first <= last
        else { return nil }
        var total: Int64?
        if halves[1] != "*" {
            guard let complete = Self.digits(halves[1]), last < complete else { return nil }
            total = complete
        }
        self.first = first
        self.last = last
        self.total = total
    }

    /// Creates a range from its numbers.
    package init(first: Int64, last: Int64, total: Int64?) {
        self.first = first
        self.last = last
        self.total = total
    }

    /// The number of bytes the range covers; `nil` when it would not fit in `Int64` (`0-9223372036854775807`).
    package var count: Int64? {
        let (difference, overflow) = (last - first).addingReportingOverflow(1)
        return overflow ? nil : difference
    }

    /// The header value.
    package var headerValue: String { "bytes \(first)-\(last)/\(total.map(String.init) ?? "*")" }

    /// A decimal number of ASCII digits that fits in `Int64` (no sign, no spaces), such as a `Content-Length`.
    package static func digits(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }
}
