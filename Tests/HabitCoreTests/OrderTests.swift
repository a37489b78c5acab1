import Foundation
import XCTest
import HabitCore

private let start = LocalDay(year: 2026, month: 3, day: 2)!

final class OrderKeyTests: XCTestCase {
    private func assertBetween(_ a: String?, _ b: String?, file: StaticString = #filePath, line: UInt = #line) {
        guard let k = OrderKey.between(a, b) else { return XCTFail("no key between \(a ?? "start") and \(b ?? "end")", file: file, line: line) }
        XCTAssertTrue(OrderKey.isValid(k), "\(k) is a valid key", file: file, line: line)
        if let a { XCTAssertTrue(OrderKey.less(a, k), "\(a) < \(k)", file: file, line: line) }
        if let b { XCTAssertTrue(OrderKey.less(k, b), "\(k) < \(b)", file: file, line: line) }
    }

    func testAKeyExistsBetweenAnyTwoKeysBeforeTheFirstAndAfterTheLast() {
        assertBetween(nil, nil)
        for (a, b) in [("V", "W"), ("V", "V1"), ("1", "2"), ("z", "zz"), ("01", "02"), ("A", "B01"), ("y", "z"), ("0001", "1")] {
            assertBetween(a, b)
            assertBetween(nil, a)
            assertBetween(b, nil)
        }
        assertBetween(nil, "0001")
        assertBetween("zzzz", nil)
    }

    func testRandomPairsOfKeysAlwaysHaveAKeyBetween() {
        var rng = SplitMix64(seed: 15)
        for _ in 0..<2_000 {
            func key() -> String {
                var s = (0..<Int.random(in: 1...6, using: &rng)).map { _ in OrderKey.digits.randomElement(using: &rng)! }
                if s.last == OrderKey.digits[0] { s[s.count - 1] = OrderKey.digits[1] }
                return String(decoding: s, as: UTF8.self)
            }
            let a = key(), b = key()
            guard a != b else { continue }
            assertBetween(min(a, b), max(a, b))
        }
    }

    func testNoKeyBetweenEqualOrReversedOrInvalidBounds() {
        XCTAssertNil(OrderKey.between("V", "V"))
        XCTAssertNil(OrderKey.between("W", "V"))
        XCTAssertNil(OrderKey.between("V0", nil), "a key ending in the lowest digit is not a key")
        XCTAssertNil(OrderKey.between("a-b", nil))
        XCTAssertNil(OrderKey.between(nil, ""))
    }

    func testValidationRefusesWhatCannotBeAKey() {
        for bad in ["", "0", "a0", "a b", "é", "V\u{1B}", String(repeating: "V", count: OrderKey.maxLength + 1)] {
            XCTAssertFalse(OrderKey.isValid(bad), bad)
            XCTAssertThrowsError(try Validate.position(bad))
        }
        XCTAssertTrue(OrderKey.isValid(String(repeating: "z", count: OrderKey.maxLength)))
    }

    func testSplittingTheSameGapAgainAndAgainStaysBoundedThenStops() {
        var low: String? = "V", lengths: [Int] = []
        var steps = 0
        while let k = OrderKey.between(low, "W") {
            XCTAssertTrue(OrderKey.less(low!, k) && OrderKey.less(k, "W"))
            lengths.append(k.utf8.count)
            low = k
            steps += 1
            if steps > 10_000 { return XCTFail("the gap never closed") }
        }
        XCTAssertGreaterThan(steps, 100, "a gap takes many moves before it is full")
        XCTAssertLessThanOrEqual(lengths.max()!, OrderKey.maxLength)
    }

    func testSpreadGivesShortAscendingKeys() throws {
        let keys = try XCTUnwrap(OrderKey.spread(1_000, between: nil, nil))
        XCTAssertEqual(keys.count, 1_000)
        XCTAssertEqual(Set(keys).count, 1_000)
        XCTAssertEqual(keys, keys.sorted(by: OrderKey.less))
        XCTAssertLessThanOrEqual(keys.map(\.utf8.count).max()!, 3)
        XCTAssertEqual(OrderKey.spread(0, between: nil, nil), [])
        XCTAssertNil(OrderKey.spread(2, between: "V", "V"))
    }
}

final class HabitOrderTests: XCTestCase {
    private func world(_ names: [String]) -> (World, [Habit]) {
        var w = World()
        let habits = names.map { w.build($0, start: start) }
        return (w, habits)
    }

    private func move(_ w: inout World, _ h: Habit, _ target: MoveTarget, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let changes = try Edits.move(h.id, to: target, in: w.state)
            for c in changes { XCTAssertNoThrow(try c.validate(), file: file, line: line); _ = w.apply(c, file: file, line: line) }
        } catch {
            XCTFail("move failed: \(error)", file: file, line: line)
        }
    }

    private func names(_ w: World) -> [String] { w.state.habits.map(\.name) }

    func testHabitsNeverMovedAreInCreationOrder() {
        let (w, _) = world(["Read", "Walk", "Water"])
        XCTAssertEqual(names(w), ["Read", "Walk", "Water"])
        XCTAssertTrue(w.state.habits.allSatisfy { $0.fields.position == nil })
    }

    func testMovesToTopBottomBeforeAndAfter() {
        var (w, h) = world(["A", "B", "C", "D"])
        move(&w, h[3], .top)
        XCTAssertEqual(names(w), ["D", "A", "B", "C"])
        move(&w, h[3], .bottom)
        XCTAssertEqual(names(w), ["A", "B", "C", "D"])
        move(&w, h[0], .after(h[2].id))
        XCTAssertEqual(names(w), ["B", "C", "A", "D"])
        move(&w, h[3], .before(h[1].id))
        XCTAssertEqual(names(w), ["D", "B", "C", "A"])
        move(&w, h[2], .before(h[3].id))
        XCTAssertEqual(names(w), ["C", "D", "B", "A"])
    }

    func testAMoveWritesOnlyTheKeysItNeedsMovedHabitFirst() throws {
        let (w, h) = world(["A", "B", "C", "D"])
        let first = try Edits.move(h[2].id, to: .top, in: w.state)
        XCTAssertEqual(first.map(\.habit), [h[2].id], "moving to the top needs one key")
        let after = try Edits.move(h[0].id, to: .after(h[2].id), in: w.state)
        XCTAssertEqual(after.map(\.habit), [h[0].id, h[1].id, h[2].id], "the habits before it get keys too")
    }

    func testAMoveToWhereItIsChangesNothing() throws {
        let (w, h) = world(["A", "B", "C"])
        XCTAssertEqual(try Edits.move(h[0].id, to: .top, in: w.state), [])
        XCTAssertEqual(try Edits.move(h[2].id, to: .bottom, in: w.state), [])
        XCTAssertEqual(try Edits.move(h[1].id, to: .after(h[0].id), in: w.state), [])
        XCTAssertEqual(try Edits.move(h[1].id, to: .before(h[2].id), in: w.state), [])
    }

    func testAMoveRelativeToItselfOrAnUnknownHabitIsRefused() {
        let (w, h) = world(["A", "B"])
        XCTAssertThrowsError(try Edits.move(h[0].id, to: .before(h[0].id), in: w.state)) { error in
            XCTAssertTrue("\(error)".contains("itself"), "\(error)")
        }
        XCTAssertThrowsError(try Edits.move(h[0].id, to: .after(habitID(99)), in: w.state))
        XCTAssertThrowsError(try Edits.move(habitID(99), to: .top, in: w.state))
    }

    func testANewHabitGoesBelowTheMovedOnes() {
        var (w, h) = world(["A", "B"])
        move(&w, h[1], .top)
        w.build("C", start: start)
        XCTAssertEqual(names(w), ["B", "A", "C"])
    }

    func testArchivedHabitsKeepTheirPlaceAndCanBeMoved() {
        var (w, h) = world(["A", "B", "C"])
        w.set(h[1], .archivedFrom(start))
        move(&w, h[2], .before(h[1].id))
        XCTAssertEqual(names(w), ["A", "C", "B"])
        move(&w, h[1], .top)
        XCTAssertEqual(names(w), ["B", "A", "C"])
    }

    func testManyMovesIntoTheSameGapStayBoundedAndKeepTheOrder() {
        var (w, h) = world(["A", "B", "C"])
        var spreads = 0
        // Alternately put C and B just after A: each time into the gap the last move made.
        for i in 0..<600 {
            let moved = i % 2 == 0 ? h[2] : h[1]
            if i > 0, let changes = try? Edits.move(moved.id, to: .after(h[0].id), in: w.state), changes.count > 1 { spreads += 1 }
            move(&w, moved, .after(h[0].id))
            XCTAssertEqual(names(w).first, "A")
            XCTAssertEqual(names(w)[1], i % 2 == 0 ? "C" : "B")
        }
        XCTAssertTrue(w.state.habits.allSatisfy { ($0.fields.position?.utf8.count ?? 0) <= OrderKey.maxLength })
        XCTAssertGreaterThan(spreads, 0, "a full gap was spread out again, in the same command")
    }

    func testEqualKeysFromTwoDevicesSortByCreationAndAMoveBetweenThemSpreadsThem() {
        var (w, h) = world(["A", "B", "C"])
        // Two devices gave A and B the same key at once.
        w.set(h[0], .position("V"))
        w.set(h[1], .position("V"))
        XCTAssertEqual(names(w), ["A", "B", "C"])
        move(&w, h[2], .after(h[0].id))
        XCTAssertEqual(names(w), ["A", "C", "B"])
    }

    func testConcurrentMovesOnTwoDevicesConvergeToTheLaterWrite() throws {
        var base = World()
        let a = base.build("A", start: start), b = base.build("B", start: start), c = base.build("C", start: start)
        var one = base.state, two = base.state
        var d1 = TestDevice(2, wallMillis: 5_000), d2 = TestDevice(3, wallMillis: 6_000)
        let ops1 = try Edits.move(c.id, to: .top, in: one).map { d1.op($0) }
        let ops2 = try Edits.move(c.id, to: .after(a.id), in: two).map { d2.op($0) }
        for op in ops1 + ops2 { one.apply(op) }
        for op in ops2 + ops1 { two.apply(op) }
        XCTAssertEqual(one, two)
        XCTAssertEqual(one.habits.map(\.name), ["A", "C", "B"], "the later move wins")
        _ = b
    }

    func testACreateWithoutAKeyLeavesTheRegisterUnset() throws {
        let (w, h) = world(["A"])
        XCTAssertNil(w.state.entries[h[0].id]?.fieldStamps[FieldValue.position(nil).index] ?? nil)
    }
}

final class OrderCodecTests: XCTestCase {
    func testOrderKeysRoundTripInCreatesAndSets() throws {
        let fields = HabitFields(name: "Read", startDate: start, position: "V1")
        XCTAssertEqual(try roundTrip(.create(habitID(1), fields)), .create(habitID(1), fields))
        XCTAssertEqual(try roundTrip(.set(habitID(1), .position("a"))), .set(habitID(1), .position("a")))
        XCTAssertEqual(try roundTrip(.set(habitID(1), .position(nil))), .set(habitID(1), .position(nil)))
    }

    func testACreateWithoutAKeyIsWrittenWithElevenFieldsAsBefore() {
        var w = ByteWriter()
        w.change(.create(habitID(1), HabitFields(name: "Read", startDate: start)))
        XCTAssertEqual(w.bytes[0], 11)
        XCTAssertEqual(w.bytes[9], UInt8(FieldValue.countBeforePosition), "the field count after the tag and id")
    }

    func testABadKeyInAnOperationIsRefused() {
        for bad in ["", "a0", "a b", String(repeating: "z", count: OrderKey.maxLength + 1)] {
            var w = ByteWriter()
            w.u8(2); w.habit(habitID(1)); w.u8(11); w.optionalString(bad)
            var r = ByteReader(w.bytes)
            XCTAssertThrowsError(try r.change(), bad)
        }
        XCTAssertThrowsError(try Change.set(habitID(1), .position("a0")).validate())
    }

    func testAStateEncodedWithElevenFieldsReadsWithoutKeys() throws {
        var world = World()
        world.build("Read", start: start)
        let old = world.state.encoded(as: StateFormat(fieldCount: FieldValue.countBeforePosition))
        var r = ByteReader(old)
        r.format.fieldCount = FieldValue.countBeforePosition
        let state = try HabitState(decoding: &r)
        XCTAssertTrue(r.isAtEnd)
        XCTAssertEqual(state, world.state)
        XCTAssertNotEqual(old, world.state.encoded(), "the current encoding holds the order key register")
    }
}
