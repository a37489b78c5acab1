import XCTest
@testable import HabitCore

/// A dated register cleared (`Change.clearFrom`, issue 39, point 14): a last-writer-wins
/// tombstone that the days read past, that converges with a `setFrom` of the same register in
/// any order, and that every encoding carries (operations and states; an older state format
/// holds none and refuses one).
final class ClearedRegisterTests: XCTestCase {
    func d(_ n: Int) -> LocalDay { LocalDay(year: 2026, month: 11, day: n)! }
    private let h = habitID(1)

    private func goals(_ s: HabitState, file: StaticString = #filePath, line: UInt = #line) -> [Int] {
        guard let habit = s.habit(h) else { XCTFail("no habit", file: file, line: line); return [] }
        return (1...10).map { habit.on(d($0)).goal / Amount.scale }
    }

    /// Every order of `ops` (all of them are short) folded into a state.
    private func states(_ ops: [HabitOperation]) -> [HabitState] {
        func orders(_ rest: [HabitOperation]) -> [[HabitOperation]] {
            guard rest.count > 1 else { return [rest] }
            return rest.indices.flatMap { i -> [[HabitOperation]] in
                var others = rest
                let op = others.remove(at: i)
                return orders(others).map { [op] + $0 }
            }
        }
        // Each device's operations stay in sequence: orders that break it are left out.
        return orders(ops).compactMap { order in
            var s = HabitState()
            for op in order { guard s.apply(op) == .applied else { return nil } }
            return s
        }
    }

    func testAClearedDayReadsTheRegisterBeforeItOrTheBase() throws {
        var a = TestDevice(1)
        let ops = [a.op(.create(h, HabitFields(name: "Water", goal: 8 * Amount.scale, startDate: d(1))), at: 1_000),
                   a.op(.setFrom(h, d(3), .goal(10 * Amount.scale)), at: 2_000),
                   a.op(.setFrom(h, d(6), .goal(12 * Amount.scale)), at: 3_000)]
        var s = HabitState()
        for op in ops { applyOrFail(op, to: &s) }
        XCTAssertEqual(goals(s), [8, 8, 10, 10, 10, 12, 12, 12, 12, 12])
        applyOrFail(a.op(.clearFrom(h, d(6), index: FieldValue.goal(0).index), at: 4_000), to: &s)
        XCTAssertEqual(goals(s), [8, 8, 10, 10, 10, 10, 10, 10, 10, 10], "day 6 reads day 3's register")
        applyOrFail(a.op(.clearFrom(h, d(3), index: FieldValue.goal(0).index), at: 5_000), to: &s)
        XCTAssertEqual(goals(s), Array(repeating: 8, count: 10), "no register in force: the base")
        XCTAssertEqual(s.habit(h)?.definitions.count, 1, "cleared registers start no definition")
        XCTAssertEqual(s.entries[h]?.dated.count, 2, "the tombstones stay, with their stamps")
    }

    func testAClearAndASetFromOfOneRegisterConvergeInEitherOrder() throws {
        for setIsNewer in [false, true] {
            var a = TestDevice(1), b = TestDevice(2)
            let create = a.op(.create(h, HabitFields(name: "Water", goal: 8 * Amount.scale, startDate: d(1))), at: 1_000)
            let first = a.op(.setFrom(h, d(5), .goal(10 * Amount.scale)), at: 2_000)
            b.observe(first.hlc)
            // Neither device has seen the other's write of the day-5 register.
            let clear = a.op(.clearFrom(h, d(5), index: FieldValue.goal(0).index), at: 5_000)
            let set = b.op(.setFrom(h, d(5), .goal(12 * Amount.scale)), at: setIsNewer ? 6_000 : 4_000)
            let all = states([create, first, clear, set])
            XCTAssertGreaterThan(all.count, 2)
            XCTAssertEqual(Set(all.map { $0.encoded() }).count, 1, "every replica holds the same bytes (set newer: \(setIsNewer))")
            XCTAssertEqual(goals(all[0]), setIsNewer ? [8, 8, 8, 8, 12, 12, 12, 12, 12, 12] : Array(repeating: 8, count: 10),
                           setIsNewer ? "the newer setFrom wins over the clear" : "an older setFrom does not bring the register back")
            var r = ByteReader(all[0].encoded())
            XCTAssertEqual(try HabitState(decoding: &r), all[0])
            XCTAssertTrue(r.isAtEnd)
        }
    }

    func testAClearRoundTripsAndOnlyRuleFieldsAreCleared() throws {
        for index in HabitRule.fieldIndices {
            XCTAssertEqual(try roundTrip(.clearFrom(h, d(4), index: index)), .clearFrom(h, d(4), index: index))
            XCTAssertNoThrow(try Change.clearFrom(h, d(4), index: index).validate())
        }
        for index in [0, 2, 7, 12, 13, 200] {
            var w = ByteWriter()
            w.change(.clearFrom(h, d(4), index: index))
            var r = ByteReader(w.bytes)
            XCTAssertThrowsError(try r.change(), "index \(index)") { error in
                XCTAssertEqual(error as? DecodeError, DecodeError("only kind, goal, unit and schedule are set from a day"))
            }
            XCTAssertThrowsError(try Change.clearFrom(h, d(4), index: index).validate(), "index \(index)")
        }
    }

    func testAStateWithClearedRegistersRoundTripsAndAnOlderFormatRefusesThem() throws {
        var a = TestDevice(1)
        var s = HabitState()
        for change: Change in [.create(h, HabitFields(name: "Water", goal: 8 * Amount.scale, startDate: d(1))),
                               .setFrom(h, d(3), .unit("cups")), .setFrom(h, d(4), .goal(9 * Amount.scale))] {
            applyOrFail(a.op(change), to: &s)
        }
        // Without a cleared register the state reads the same in the format before them.
        var old = ByteReader(s.encoded())
        old.format.clearedRegisters = false
        XCTAssertEqual(try HabitState(decoding: &old), s)
        applyOrFail(a.op(.clearFrom(h, d(4), index: FieldValue.goal(0).index)), to: &s)
        applyOrFail(a.op(.clearFrom(h, d(8), index: FieldValue.schedule(.daily).index)), to: &s)
        var r = ByteReader(s.encoded())
        let back = try HabitState(decoding: &r)
        XCTAssertEqual(back, s)
        XCTAssertTrue(r.isAtEnd)
        XCTAssertEqual(back.entries[h]?.dated[DatedField(day: d(4), index: FieldValue.goal(0).index)]?.value, .some(nil))
        var refused = ByteReader(s.encoded())
        refused.format.clearedRegisters = false
        XCTAssertThrowsError(try HabitState(decoding: &refused)) { error in
            XCTAssertEqual(error as? DecodeError, DecodeError("a cleared dated register in a format without them"))
        }
    }
}
