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
    ///
    /// As cheap as `String`'s `==` where keys usually meet (the coders and lookups compare keys on every member):
    /// the same representation (one shared key, or two small strings of the same bytes) is the same bytes at once;
    /// strings that are not even canonically equivalent differ; only the rest have their bytes compared.
    @inline(__always)
    static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        // Two equal bit patterns are one string: the same storage, or the same small string's bytes inline. (A fast
        // yes only; different patterns decide nothing.)
        typealias Representation = (UInt64, UInt64)
        if MemoryLayout<String>.size == MemoryLayout<Representation>.size,
            unsafeBitCast(lhs, to: Representation.self) == unsafeBitCast(rhs, to: Representation.self)
        {
            return true
        }
        // Strings with the same bytes are canonically equivalent, so `String`'s `==` (a word compare for small
        // ASCII strings) rules out most others cheaply.
        guard lhs == rhs else { return false }
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
