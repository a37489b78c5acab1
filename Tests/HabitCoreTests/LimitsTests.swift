import XCTest
import HabitCore

/// Each bound of `Limits` holds at its edges the same way in parsing, in validation
/// (`Change.validate`, `Schedule.validateShape`) and in decoding.
final class LimitsTests: XCTestCase {
    private let h = habitID(0x51)
    private let day = LocalDay(year: 2026, month: 3, day: 2)!

    /// Whether `change`, written as it is, decodes.
    private func decodes(_ change: Change) -> Bool {
        var w = ByteWriter()
        w.operation(HabitOperation(id: OpID(device: deviceID(1), seq: 1), hlc: HLC(wallMillis: 1, counter: 0), change: change))
        return (try? decodeOperation(w.bytes)) != nil
    }

    private func validates(_ change: Change) -> Bool { (try? change.validate()) != nil }

    /// Validation and decoding agree on `schedule`: both accept it or both refuse it.
    private func assertStored(_ schedule: Schedule, accepted: Bool, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual((try? schedule.validateShape()) != nil, accepted, "validateShape \(schedule)", file: file, line: line)
        XCTAssertEqual(validates(.set(h, .schedule(schedule))), accepted, "validate \(schedule)", file: file, line: line)
        XCTAssertEqual(decodes(.set(h, .schedule(schedule))), accepted, "decode \(schedule)", file: file, line: line)
    }

    private func parsed(_ text: String) -> Schedule? { try? Schedule(parsing: text) }

    func testNPerWeek() {
        XCTAssertEqual(Limits.timesPerWeek, 1...7)
        XCTAssertNil(parsed("\(Limits.timesPerWeek.lowerBound - 1)/week"))
        XCTAssertEqual(parsed("1/week"), .perWeek(1))
        XCTAssertEqual(parsed("6/week"), .perWeek(6))
        XCTAssertEqual(parsed("\(Limits.timesPerWeek.upperBound)/week"), .daily, "7 per week is daily")
        XCTAssertNil(parsed("\(Limits.timesPerWeek.upperBound + 1)/week"))
        // What is stored is what parsing gives: at most 6 (7 is daily).
        XCTAssertEqual(Limits.storedTimesPerWeek, 1...6)
        assertStored(.perWeek(0), accepted: false)
        assertStored(.perWeek(1), accepted: true)
        assertStored(.perWeek(6), accepted: true)
        assertStored(.perWeek(7), accepted: false)
    }

    func testNPerMonth() {
        XCTAssertEqual(Limits.timesPerMonth, 1...31)
        XCTAssertNil(parsed("0/month"))
        XCTAssertEqual(parsed("1/month"), .perMonth(1))
        XCTAssertEqual(parsed("31/month"), .perMonth(31))
        XCTAssertNil(parsed("32/month"))
        assertStored(.perMonth(0), accepted: false)
        assertStored(.perMonth(1), accepted: true)
        assertStored(.perMonth(31), accepted: true)
        assertStored(.perMonth(32), accepted: false)
    }

    func testEveryNDays() {
        XCTAssertEqual(Limits.everyNDays, 1...365)
        XCTAssertNil(parsed("every:0"))
        XCTAssertEqual(parsed("every:1"), .daily, "every day is daily")
        XCTAssertEqual(parsed("every:2"), .everyNDays(2))
        XCTAssertEqual(parsed("every:365"), .everyNDays(365))
        XCTAssertNil(parsed("every:366"))
        XCTAssertEqual(Limits.storedEveryNDays, 2...365)
        assertStored(.everyNDays(1), accepted: false)
        assertStored(.everyNDays(2), accepted: true)
        assertStored(.everyNDays(365), accepted: true)
        assertStored(.everyNDays(366), accepted: false)
    }

    func testDifficulty() throws {
        XCTAssertEqual(Limits.difficulty, 1...5)
        for (r, accepted) in [(0, false), (1, true), (5, true), (6, false)] {
            XCTAssertEqual(validates(.rate(h, day, r)), accepted, "validate \(r)")
        }
        XCTAssertTrue(validates(.rate(h, day, nil)))
        // Decoding: 0 is no rating; 1 to 5 a rating; anything above is refused.
        for (stored, accepted) in [(0, true), (1, true), (5, true), (6, false)] {
            var w = ByteWriter()
            w.opID(OpID(device: deviceID(1), seq: 1)); w.hlc(HLC(wallMillis: 1, counter: 0))
            w.u8(OperationTag.rate.rawValue); w.habit(h); w.day(day); w.u8(UInt8(stored))
            XCTAssertEqual((try? decodeOperation(w.bytes)) != nil, accepted, "decode stored \(stored)")
        }
        // Parsing a catch-up answer's difficulty.
        let habit = Habit(id: h, fields: HabitFields(name: "Read", startDate: day))
        for (answer, accepted) in [("y 0", false), ("y 1", true), ("y 5", true), ("y 6", false)] {
            XCTAssertEqual((try? CatchUp.parse(answer, for: habit)) != nil, accepted, "catch-up answer '\(answer)'")
        }
    }

    func testAmounts() {
        let edges: [(Change, Bool)] = [
            (.progress(h, day, delta: Limits.maxChange), true), (.progress(h, day, delta: Limits.maxChange + 1), false),
            (.progress(h, day, delta: -Limits.maxChange), true), (.progress(h, day, delta: -Limits.maxChange - 1), false),
            (.progress(h, day, delta: 0), false),
            (.setProgress(h, day, total: 0), true), (.setProgress(h, day, total: -1), false),
            (.setProgress(h, day, total: Limits.maxDayProgress), true), (.setProgress(h, day, total: Limits.maxDayProgress + 1), false),
            (.set(h, .goal(0)), true), (.set(h, .goal(Limits.maxGoal)), true), (.set(h, .goal(Limits.maxGoal + 1)), false),
        ]
        for (change, accepted) in edges {
            XCTAssertEqual(validates(change), accepted, "validate \(change)")
            XCTAssertEqual(decodes(change), accepted, "decode \(change)")
        }
        // Parsing: an amount is thousandths; the bounds are checked by whoever reads it.
        XCTAssertEqual(try? Amount.parse("1000000"), Limits.maxGoal)
        XCTAssertEqual(try? Amount.parse("0.001"), 1)
    }
}
