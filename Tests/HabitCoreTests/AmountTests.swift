import XCTest
@testable import HabitCore

private let monday = LocalDay(year: 2026, month: 3, day: 2)!

final class AmountTests: XCTestCase {
    func testAmountsParseIntoExactThousandths() throws {
        XCTAssertEqual(try Amount.parse("3"), 3_000)
        XCTAssertEqual(try Amount.parse("1.5"), 1_500)
        XCTAssertEqual(try Amount.parse("0.125"), 125)
        XCTAssertEqual(try Amount.parse("5.2"), 5_200)
        XCTAssertEqual(try Amount.parse("10000"), 10_000_000)
        XCTAssertEqual(try Amount.parse(".5"), 500)
        XCTAssertEqual(try Amount.parse("007.010"), 7_010)
    }

    func testAmountsThatAreNotPlainDecimalsAreRefusedWithAMessage() {
        for text in ["", "-1", "+1", "1.", ".", "1.2345", "1,5", "1e3", "abc", "1.2.3", " 1", "99999999999999"] {
            XCTAssertThrowsError(try Amount.parse(text), "'\(text)'") { error in
                guard let e = error as? CoreError else { return XCTFail("\(error)") }
                switch e {
                case .amountNotANumber, .amountTooPrecise, .amountTooLarge: break
                default: XCTFail("not an amount's refusal: \(e)")
                }
                let m = e.description
                XCTAssertFalse(m.contains("\n"), m)
                XCTAssertTrue(m.hasPrefix("amount '"), m)
            }
        }
        XCTAssertThrowsError(try Amount.parse("1.2345")) { error in
            XCTAssertEqual("\(error)", "amount '1.2345' has more than 3 decimals: round it to at most 3, like 2.125")
        }
    }

    func testAmountsFormatWithoutTrailingZeros() {
        XCTAssertEqual(Amount.format(8_000), "8")
        XCTAssertEqual(Amount.format(2_500), "2.5")
        XCTAssertEqual(Amount.format(125), "0.125")
        XCTAssertEqual(Amount.format(10), "0.01")
        XCTAssertEqual(Amount.format(0), "0")
        XCTAssertEqual(Amount.format(-1_500), "-1.5")
        XCTAssertEqual(Amount.format(Limits.maxGoal), "1000000")
        for n in [0, 1, 999, 1_000, 1_001, 123_456, Limits.maxChange] {
            XCTAssertEqual(try Amount.parse(Amount.format(n)), n)
        }
    }

    // MARK: Whole-unit encodings

    private func operation(_ body: (inout ByteWriter) -> Void) throws -> HabitOperation {
        var w = ByteWriter()
        w.opID(OpID(device: deviceID(1), seq: 1))
        w.hlc(HLC(wallMillis: 1, counter: 0))
        body(&w)
        var r = ByteReader(w.bytes)
        let op = try r.operation()
        XCTAssertTrue(r.isAtEnd)
        return op
    }

    func testOperationsWrittenInWholeUnitsAreReadAsWholeUnits() throws {
        let h = habitID(1)
        // Tag 5: a progress change of 3 whole units.
        XCTAssertEqual(try operation { $0.u8(5); $0.habit(h); $0.day(monday); $0.int(3) }.change,
                       .progress(h, monday, delta: 3_000))
        XCTAssertEqual(try operation { $0.u8(5); $0.habit(h); $0.day(monday); $0.int(-1_000_000) }.change,
                       .progress(h, monday, delta: -Limits.maxChange))
        // Tag 2 with a goal: whole units.
        XCTAssertEqual(try operation { $0.u8(2); $0.habit(h); $0.u8(4); $0.int(8) }.change, .set(h, .goal(8_000)))
        // Tag 9: a create whose goal is in whole units.
        let fields = HabitFields(name: "Run", goal: 5_000, unit: "km", startDate: monday)
        let created = try operation {
            $0.u8(9); $0.habit(h); $0.varint(UInt64(FieldValue.count))
            for f in FieldValue.all(of: fields) { if case .goal = f { $0.field(.goal(5)) } else { $0.field(f) } }
        }
        XCTAssertEqual(created.change, .create(h, fields))
    }

    func testOperationsAreWrittenInThousandthsUnderNewTags() throws {
        let h = habitID(1)
        var device = TestDevice(1)
        for (change, tag) in [(Change.progress(h, monday, delta: 1_500), 10), (.set(h, .goal(2_500)), 12),
                              (.set(h, .name("x")), 2), (.create(h, HabitFields(name: "Run", goal: 2_500, startDate: monday)), 11)] {
            let op = device.op(change)
            var w = ByteWriter(), prefix = ByteWriter()
            w.operation(op)
            prefix.opID(op.id); prefix.hlc(op.hlc)
            XCTAssertEqual(Int(w.bytes[prefix.bytes.count]), tag, "\(change)")
            var r = ByteReader(w.bytes)
            XCTAssertEqual(try r.operation(), op)
        }
    }

    func testAStateStoredInWholeUnitsIsReadInThousandths() throws {
        var world = World()
        let run = world.build("Run", start: monday, goal: 5)
        world.progress(run, monday, 4)
        let bytes = world.state.encoded()
        var r = ByteReader(bytes)
        r.format.amountScale = Amount.scale
        let state = try HabitState(decoding: &r)
        XCTAssertEqual(state.habit(run.id)?.goal, 5_000)
        XCTAssertEqual(state.progress(run.id, monday), 4_000)
    }

    // MARK: Rules on decimal goals

    func testStreakAndStrengthOnADecimalGoalCountOnlyDaysThatReachIt() {
        var world = World()
        let run = world.build("Run", start: monday, goal: 2_500)
        world.progress(run, monday, 2_500)               // exactly the goal: done
        world.progress(run, monday.adding(1), 3_125)     // above: done
        world.progress(run, monday.adding(2), 2_499)     // 0.001 short: not done
        world.progress(run, monday.adding(3), 1_250)
        world.progress(run, monday.adding(3), 1_250)     // two check-ins reaching it: done
        world.progress(run, monday.adding(4), 2_500)
        let state = world.state
        let today = monday.adding(4)
        let summary = state.summary(run, on: today, today: today)
        XCTAssertTrue(summary.completed)
        XCTAssertEqual(summary.progress, 2_500)
        XCTAssertEqual(summary.streak, 2)
        XCTAssertFalse(state.summary(run, on: monday.adding(2), today: today).completed)
        XCTAssertEqual(state.summary(run, on: monday.adding(1), today: today).streak, 2)

        // The same days as a yes/no habit (done, done, not, done, done) give the same strength.
        var yesNo = World()
        let read = yesNo.build("Read", start: monday)
        yesNo.progress(read, days: [monday, monday.adding(1), monday.adding(3), monday.adding(4)])
        XCTAssertEqual(state.strength(run, asOf: today), yesNo.state.strength(read, asOf: today), accuracy: 1e-12)
        XCTAssertGreaterThan(state.strength(run, asOf: today), 0)
    }

    func testALimitOnADecimalGoalIsExceededByAThousandth() {
        var world = World()
        let wine = world.limit("Wine", start: monday, goal: 1_500)
        world.progress(wine, monday, 1_500)
        world.progress(wine, monday.adding(1), 1_501)
        let today = monday.adding(1)
        XCTAssertTrue(world.state.summary(wine, on: monday, today: today).completed)
        XCTAssertTrue(world.state.summary(wine, on: today, today: today).exceeded)
    }
}
