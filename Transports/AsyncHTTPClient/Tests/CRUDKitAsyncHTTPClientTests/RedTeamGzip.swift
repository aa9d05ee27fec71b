import Foundation

/// gzip members for the red-team probes (a copy of CRUDKitTesting's internal `GzipBody`): literals for text, and
/// back-references of 258 bytes at distance 1 for a run of zeros (a "gzip bomb").
enum RedGzip {
    /// `text` as a gzip member.
    static func text(_ text: String) -> Data { bytes(Array(text.utf8)) }

    /// `bytes` as a gzip member (literals only).
    static func bytes(_ bytes: [UInt8]) -> Data {
        var writer = BitWriter()
        writer.blockHeader()
        for byte in bytes { writer.literal(Int(byte)) }
        writer.endOfBlock()
        return member(writer.finish(), crc: crc32(bytes), size: bytes.count)
    }

    /// `count` zero bytes as one gzip member.
    static func zeros(_ count: Int) -> Data {
        var writer = BitWriter()
        writer.blockHeader()
        var left = count
        if left > 0 {
            writer.literal(0)
            left -= 1
        }
        while left >= 258 {
            writer.repeat258()
            left -= 258
        }
        for _ in 0..<left { writer.literal(0) }
        writer.endOfBlock()
        return member(writer.finish(), crc: crc32(Array(repeating: 0, count: count)), size: count)
    }

    private static func member(_ deflate: [UInt8], crc: UInt32, size: Int) -> Data {
        var data = Data([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])
        data.append(contentsOf: deflate)
        let length = UInt32(truncatingIfNeeded: size)
        for shift in stride(from: 0, to: 32, by: 8) { data.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
        for shift in stride(from: 0, to: 32, by: 8) { data.append(UInt8(truncatingIfNeeded: length >> UInt32(shift))) }
        return data
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    private struct BitWriter {
        var bytes: [UInt8] = []
        var current: UInt32 = 0
        var used: UInt32 = 0

        mutating func bits(_ value: UInt32, count: UInt32) {
            for index in 0..<count {
                current |= ((value >> index) & 1) << used
                used += 1
                if used == 8 {
                    bytes.append(UInt8(current))
                    current = 0
                    used = 0
                }
            }
        }

        mutating func code(_ value: UInt32, length: UInt32) {
            var reversed: UInt32 = 0
            for index in 0..<length { reversed |= ((value >> index) & 1) << (length - 1 - index) }
            bits(reversed, count: length)
        }

        mutating func blockHeader() { bits(0b011, count: 3) }

        mutating func literal(_ byte: Int) {
            if byte < 144 { code(0x30 + UInt32(byte), length: 8) } else { code(0x190 + UInt32(byte - 144), length: 9) }
        }

        mutating func repeat258() {
            code(0xC0 + 5, length: 8)
            code(0, length: 5)
        }

        mutating func endOfBlock() { code(0, length: 7) }

        mutating func finish() -> [UInt8] {
            if used > 0 { bytes.append(UInt8(current)) }
            return bytes
        }
    }
}
