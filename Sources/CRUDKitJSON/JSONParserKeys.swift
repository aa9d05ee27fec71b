/// The strings the parser made most recently, so a key that repeats (every object of an array of models has the
/// same ones) or a short value that repeats (a status, a city, a tag) is made once per document: a repeated string
/// is found by comparing its bytes with those of the earlier one in the input, and shares its `String` (no UTF-8
/// check, no copy, no allocation for one of more than 15 bytes).
///
/// A table of 64 slots chosen by the string's length and its first and last bytes; a string replaces the one in its
/// slot. Like ``JSONParserStack``, the owner calls ``free()`` exactly once.
struct JSONParserKeys {
    private struct Slot {
        /// Where the key's bytes (between the quotes) start in the input, and how many there are; -1 when empty.
        var start: Int
        var length: Int
        var key: String
    }

    private static let slotCount = 64

    private let slots: UnsafeMutablePointer<Slot>
    /// Longer strings are made every time.
    private let longest: Int

    /// A table for strings of up to `longest` bytes.
    init(longest: Int) {
        self.longest = longest
        slots = .allocate(capacity: Self.slotCount)
        slots.initialize(repeating: Slot(start: 0, length: -1, key: ""), count: Self.slotCount)
    }

    /// Releases the keys and the table.
    func free() {
        slots.deinitialize(count: Self.slotCount)
        slots.deallocate()
    }

    /// The string whose UTF-8 bytes (already checked, without escapes) are `bytes[start..<end]`: the earlier `String`
    /// when the same bytes were seen last in its slot, otherwise a new one, remembered.
    @inline(__always)
    func key(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> String {
        let length = end - start
        guard length > 0, length <= longest else { return Self.make(bytes, from: start, to: end) }
        var hash = UInt32(truncatingIfNeeded: length) &* 0x9E37_79B1
        hash ^= UInt32(bytes[start]) &* 0x85EB_CA77
        hash ^= UInt32(bytes[end - 1]) &* 0xC2B2_AE3D
        let slot = slots + Int(hash >> 26)
        if slot.pointee.length == length, Self.same(bytes, start, slot.pointee.start, length) {
            return slot.pointee.key
        }
        let key = Self.make(bytes, from: start, to: end)
        slot.pointee.start = start
        slot.pointee.length = length
        slot.pointee.key = key
        return key
    }

    @inline(__always)
    static func make(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// Whether the `length` bytes at `first` and at `second` are the same (both ranges lie inside `bytes`).
    @inline(__always)
    static func same(_ bytes: UnsafeBufferPointer<UInt8>, _ first: Int, _ second: Int, _ length: Int) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var offset = 0
        while offset + 8 <= length {
            guard
                raw.loadUnaligned(fromByteOffset: first + offset, as: UInt64.self)
                    == raw.loadUnaligned(fromByteOffset: second + offset, as: UInt64.self)
            else { return false }
            offset += 8
        }
        while offset < length {
            guard bytes[first + offset] == bytes[second + offset] else { return false }
            offset += 1
        }
        return true
    }
}
