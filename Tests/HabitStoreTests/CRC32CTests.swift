import XCTest
import HabitCore
import CRC32CInstruction
@testable import HabitStore

/// CRC-32C, with the processor's instruction where there is one and table-driven (eight
/// bytes a step, through pointers), against the standard check value and a bit-at-a-time
/// reference, at every alignment and length up to 70, and the two against each other.
final class CRC32CTests: XCTestCase {
    func reference(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = ~0
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
        }
        return ~c
    }

    func testCheckValueAndEveryLengthAndOffset() {
        XCTAssertEqual(CRC32C.checksum(Array("123456789".utf8)), 0xE306_9283)
        XCTAssertEqual(CRC32C.checksum([]), 0)
        var rng = SplitMix64(seed: 3)
        let bytes = (0..<100).map { _ in UInt8.random(in: 0...255, using: &rng) }
        for start in 0..<9 {
            for length in 0...70 {
                XCTAssertEqual(CRC32C.checksum(bytes, start..<(start + length)), reference(bytes[start..<(start + length)]), "\(start) \(length)")
            }
        }
    }

    func tableChecksum(_ bytes: [UInt8], _ range: Range<Int>) -> UInt32 {
        bytes.withUnsafeBufferPointer { CRC32C.tableUpdate(~0, UnsafeBufferPointer(rebasing: $0[range])) } ^ ~0
    }

    func testTableAndInstructionAgree() {
        XCTAssertEqual(tableChecksum(Array("123456789".utf8), 0..<9), 0xE306_9283)
        var rng = SplitMix64(seed: 11)
        let bytes = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        for start in 0..<9 {
            // Around the lengths where the instruction's three streams are joined (3 × 256
            // and 3 × 8192 bytes), and past several of each.
            for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 767, 768, 769, 1_000, 4_096, 24_575, 24_576, 24_577, 69_000] {
                let r = start..<(start + length)
                XCTAssertEqual(CRC32C.checksum(bytes, r), tableChecksum(bytes, r), "\(start) \(length)")
                if length <= 1_000 { XCTAssertEqual(tableChecksum(bytes, r), reference(bytes[r]), "\(start) \(length)") }
            }
        }
        // Continuing a register over two pieces equals one pass.
        let whole = CRC32C.checksum(bytes, 0..<50_001)
        let split = bytes.withUnsafeBufferPointer { b in
            CRC32C.update(CRC32C.update(~0, UnsafeBufferPointer(rebasing: b[0..<12_345])), UnsafeBufferPointer(rebasing: b[12_345..<50_001]))
        } ^ ~0
        XCTAssertEqual(whole, split)
    }

    #if arch(x86_64)
    /// Every entry of the tables that join the instruction's streams: shifting a register by
    /// 8192 or 256 zero bytes, each byte value at each byte position, as the table-driven
    /// code computes it.
    func testStreamJoiningTablesMatchZeroBytes() {
        for length in [8_192, 256] {
            let zeros = [UInt8](repeating: 0, count: length)
            zeros.withUnsafeBufferPointer { z in
                for position in 0..<4 {
                    for value in 0..<256 {
                        let register = UInt32(value) << (8 * UInt32(position))
                        XCTAssertEqual(habitto_crc32c_shift(register, length), CRC32C.tableUpdate(register, z),
                                       "\(length) bytes, byte \(position) = \(value)")
                    }
                }
            }
        }
    }

    /// Every x86-64 machine these tests run on has SSE 4.2 (2008 on): the instruction is
    /// the path actually taken, not only the fallback.
    func testInstructionIsUsedOnX86() {
        XCTAssertTrue(CRC32C.usesInstruction)
    }
    #endif
}
