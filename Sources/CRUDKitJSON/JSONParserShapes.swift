/// The keys of the object read last at each depth, by position: the objects of an array of models repeat the same
/// keys in the same order, so the key of member *n* of an object is first compared with the key of member *n* of
/// the previous object at the same depth. When the input bytes match (and a quote follows them) the earlier `String`
/// is shared, and the bytes are not scanned, checked or hashed again.
///
/// Only keys written without escapes are remembered: their bytes in the input are exactly the key's UTF-8, already
/// checked, so equal bytes followed by a quote are the same key. Like ``JSONParserStack``, the owner calls
/// ``free()`` exactly once.
struct JSONParserShapes {
    /// A key remembered at a depth and position.
    struct Key {
        /// Where the key's bytes (between the quotes) start in the input, and how many there are; -1 when empty.
        var start: Int
        var length: Int
        var key: String
        /// The key's filter bit (see `JSONParser.keyBit(length:first:last:)`).
        var bit: UInt64
    }

    /// Objects nested deeper, and members after this many, are not predicted.
    static let depths = 8
    static let members = 32

    private let slots: UnsafeMutablePointer<Key>

    init() {
        slots = .allocate(capacity: Self.depths * Self.members)
        slots.initialize(repeating: Key(start: 0, length: -1, key: "", bit: 0), count: Self.depths * Self.members)
    }

    /// Releases the keys and the table.
    func free() {
        slots.deinitialize(count: Self.depths * Self.members)
        slots.deallocate()
    }

    /// The remembered key of member `position` of an object at `depth`, or `nil` beyond the table.
    @inline(__always)
    func slot(depth: Int, position: Int) -> UnsafeMutablePointer<Key>? {
        guard depth < Self.depths, position < Self.members else { return nil }
        return slots + (depth * Self.members + position)
    }
}
