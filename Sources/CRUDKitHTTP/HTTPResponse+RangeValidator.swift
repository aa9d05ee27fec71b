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
