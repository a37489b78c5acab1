import XCTest
import HabitCore
@testable import HabitStore

/// The table-driven CRC-32C (eight bytes a step, through pointers) against the standard
/// check value and a bit-at-a-time reference, at every alignment and length up to 70.
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
}
