import XCTest
import HabitCore

/// The compact register stamps behave as an array of optional stamps, one per field.
final class FieldStampsTests: XCTestCase {
    private func stamp(_ millis: Int64, _ device: UInt64 = 1) -> Stamp {
        Stamp(hlc: HLC(wallMillis: millis, counter: 0), device: DeviceID(hi: 0, lo: device))
    }

    func testEveryFieldHasARegister() {
        XCTAssertLessThanOrEqual(FieldValue.count, FieldStamps.capacity)
    }

    /// Random sets and clears, against a plain array, with equality and hashing judged by
    /// the registers only (not by how many distinct stamps were ever kept).
    func testMatchesAnArrayOfOptionalStamps() {
        var rng = SplitMix64(seed: 7)
        for round in 0..<200 {
            var compact = FieldStamps(), plain = [Stamp?](repeating: nil, count: FieldValue.count)
            // Few distinct stamps in some rounds (as after a create), many in others (so that
            // unused ones must be dropped).
            let pool = round % 2 == 0 ? 3 : 40
            for _ in 0..<Int.random(in: 1...80, using: &rng) {
                let i = Int.random(in: 0..<FieldValue.count, using: &rng)
                let value: Stamp? = Int.random(in: 0..<6, using: &rng) == 0 ? nil
                    : stamp(Int64.random(in: 0..<Int64(pool), using: &rng), UInt64.random(in: 1...2, using: &rng))
                compact[i] = value
                plain[i] = value
                XCTAssertEqual((0..<FieldValue.count).map { compact[$0] }, plain, "round \(round)")
            }
            var rebuilt = FieldStamps()
            for i in (0..<FieldValue.count).reversed() { rebuilt[i] = plain[i] }
            XCTAssertEqual(compact, rebuilt, "round \(round)")
            XCTAssertEqual(compact.hashValue, rebuilt.hashValue, "round \(round)")
        }
    }

    func testDifferentRegistersAreNotEqual() {
        var a = FieldStamps(), b = FieldStamps()
        a[0] = stamp(1); b[0] = stamp(1)
        XCTAssertEqual(a, b)
        b[1] = stamp(1)
        XCTAssertNotEqual(a, b)
        a[1] = stamp(2)
        XCTAssertNotEqual(a, b)
        a[1] = nil; b[1] = nil
        XCTAssertEqual(a, b)
    }
}
