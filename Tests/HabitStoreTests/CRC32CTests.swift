import XCTest
import HabitCore
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
            for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1_000, 4_096, 69_000] {
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
    /// Every x86-64 machine these tests run on has SSE 4.2 (2008 on): the instruction is
    /// the path actually taken, not only the fallback.
    func testInstructionIsUsedOnX86() {
        XCTAssertTrue(CRC32C.usesInstruction)
    }
    #endif
}
