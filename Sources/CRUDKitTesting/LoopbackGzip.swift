import Foundation

/// gzip bodies for a ``LoopbackServer`` that answers compressed (`Content-Encoding: gzip`), written without zlib:
/// one deflate block with the fixed Huffman codes of RFC 1951 — literals for any bytes, and for a run of zero bytes
/// back-references of 258 bytes at distance 1, up to 158 decoded bytes per encoded byte (a "gzip bomb", to check
/// that a client bounds what it decodes).
///
/// ```swift
/// let server = LoopbackServer(synchronousHandler: { _ in
///     .response(HTTPResponse(status: 200, headers: ["Content-Encoding": "gzip"], body: LoopbackGzip.text("hello")))
/// })
/// ```
public enum LoopbackGzip {
    /// `text`'s UTF-8 bytes as one gzip member.
    public static func text(_ text: String) -> Data { bytes(Array(text.utf8)) }

    /// `bytes` as one gzip member (literals only: larger than `bytes`, decoded by any gzip reader).
    public static func bytes(_ bytes: [UInt8]) -> Data {
        var writer = BitWriter()
        writer.blockHeader()
        for byte in bytes { writer.literal(Int(byte)) }
        writer.endOfBlock()
        return member(writer.finish(), crc: crc32(bytes), size: bytes.count)
    }

    /// `count` zero bytes (none when `count` is not positive) as one gzip member: 13 bits per 258 zeros, then up to
    /// 257 zeros as 8-bit literals (100,000 zeros in 803 bytes).
    public static func zeros(_ count: Int) -> Data {
        let count = max(0, count)
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
        return member(writer.finish(), crc: crc32(zeros: count), size: count)
    }

    /// ``zeros(_:)`` cut into pieces of at most `chunkSize` encoded bytes (at least 1), for a streamed answer
    /// (``LoopbackStream``).
    public static func zeros(_ count: Int, chunkSize: Int) -> [Data] {
        let whole = zeros(count)
        let size = max(1, chunkSize)
        return stride(from: 0, to: whole.count, by: size).map { whole.subdata(in: $0..<min($0 + size, whole.count)) }
    }

    /// A gzip header, the deflate stream, then the CRC-32 and the size (both little-endian).
    private static func member(_ deflate: [UInt8], crc: UInt32, size: Int) -> Data {
        var data = Data([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])
        data.append(contentsOf: deflate)
        let length = UInt32(truncatingIfNeeded: size)
        for shift in stride(from: 0, to: 32, by: 8) { data.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
        for shift in stride(from: 0, to: 32, by: 8) {
            data.append(UInt8(truncatingIfNeeded: length >> UInt32(shift)))
        }
        return data
    }

    /// The CRC-32 (IEEE) table.
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

    private static func crc32(zeros count: Int) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for _ in 0..<count { crc = table[Int(crc & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    /// Writes deflate bits: fields least significant bit first, Huffman codes most significant bit first.
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

        /// A Huffman code of `length` bits, most significant first.
        mutating func code(_ value: UInt32, length: UInt32) {
            var reversed: UInt32 = 0
            for index in 0..<length { reversed |= ((value >> index) & 1) << (length - 1 - index) }
            bits(reversed, count: length)
        }

        /// BFINAL = 1, BTYPE = 01 (fixed Huffman codes).
        mutating func blockHeader() { bits(0b011, count: 3) }

        mutating func literal(_ byte: Int) {
            if byte < 144 { code(0x30 + UInt32(byte), length: 8) } else { code(0x190 + UInt32(byte - 144), length: 9) }
        }

        /// Length 258 (code 285) at distance 1 (distance code 0): the last byte 258 times more.
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
