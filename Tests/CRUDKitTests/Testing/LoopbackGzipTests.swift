import CRUDKitTesting
import Foundation
import Testing

/// The gzip bodies CRUDKitTesting writes for compressed loopback answers: a gzip member with the right trailer (the
/// CRC-32 and size any reader checks), bombs of zeros far smaller than what they decode to, and pieces that put
/// the member back together. (That they decode is checked through both transports by the contract's compression
/// checks; the bytes for "hello" were checked once with Python's `gzip.decompress`.)
@Suite struct LoopbackGzipTests {
    /// The CRC-32 and the size, little-endian, that end a member.
    private static func trailer(_ member: Data) -> (crc: UInt32, size: UInt32) {
        let bytes = Array(member.suffix(8))
        func word(_ offset: Int) -> UInt32 {
            (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
        }
        return (word(0), word(4))
    }

    @Test func textIsAGzipMemberWithItsChecksum() {
        let member = LoopbackGzip.text("hello")
        #expect(Array(member.prefix(10)) == [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])
        #expect(Self.trailer(member) == (0x3610_a686, 5))
        let checked: [UInt8] = [
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x86,
            0xa6, 0x10, 0x36, 0x05, 0x00, 0x00, 0x00,
        ]
        #expect(Array(member) == checked, "the bytes Python's gzip.decompress reads as \"hello\"")
        #expect(LoopbackGzip.bytes(Array("hello".utf8)) == member)
    }

    @Test func zerosAreABombWithTheirChecksum() {
        let member = LoopbackGzip.zeros(100_000)
        #expect(Self.trailer(member) == (0xd411_957d, 100_000))
        // 258 zeros per 13 bits, and up to 257 left over as 8-bit literals.
        #expect(member.count < 100_000 / 120, "\(member.count) bytes")
        let run = LoopbackGzip.zeros(1 + 258 * 1_000)
        #expect(Self.trailer(run) == (0xa3c7_52d4, 258_001))
        #expect(run.count < 258_001 / 150, "\(run.count) bytes")
        #expect(Self.trailer(LoopbackGzip.zeros(1_000)) == (0x060b_1780, 1_000))
        #expect(LoopbackGzip.zeros(-5) == LoopbackGzip.zeros(0), "no zeros for a count that is not positive")
        #expect(Self.trailer(LoopbackGzip.zeros(0)) == (0, 0))
    }

    @Test func piecesPutTheMemberBackTogether() {
        let whole = LoopbackGzip.zeros(100_000)
        let pieces = LoopbackGzip.zeros(100_000, chunkSize: 64)
        #expect(pieces.allSatisfy { $0.count <= 64 && !$0.isEmpty })
        #expect(pieces.reduce(Data(), +) == whole)
        #expect(LoopbackGzip.zeros(10, chunkSize: 0).count == LoopbackGzip.zeros(10).count, "pieces of one byte")
    }
}
