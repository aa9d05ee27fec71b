import Foundation

/// An object key compared and hashed by its UTF-8 bytes.
///
/// RFC 8259 §8.3 compares member names code unit by code unit, with no normalization: `"é"` (U+00E9) and
/// `"e\u{301}"` are two keys. `String`'s own `==` and hashing treat canonically equivalent strings as one, so every
/// map from keys (an object's index, the parser's, the coders' key caches) is keyed by this instead.
struct JSONByteKey: Hashable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (lhs: JSONByteKey, rhs: JSONByteKey) -> Bool { sameBytes(lhs.string, rhs.string) }

    func hash(into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(string.utf8.count)
    }

    /// Whether two strings have the same UTF-8 bytes.
    @inline(__always)
    static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        let same = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                left.count == right.count
                    && (left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
            }
        }
        if let same, let same { return same }
        return lhs.utf8.elementsEqual(rhs.utf8)
    }
}
