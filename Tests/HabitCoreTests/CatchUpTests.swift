import XCTest
import HabitCore

private let today = LocalDay(year: 2026, month: 11, day: 21)!

final class CatchUpTests: XCTestCase {
    private func asked(_ w: World, days: Int = CatchUp.defaultDays) -> [String] {
        CatchUp.items(w.state, today: today, days: days).map { "\($0.day) \($0.habit.name)" }
    }

    func testItemsAreTheUnrecordedDueDaysAfterEachHabitsLastRecordedDayOldestFirst() {
        var w = World()
        let read = w.build("Read", start: today.adding(-30), goal: Amount.scale)
        let water = w.build("Water", start: today.adding(-2), goal: 8 * Amount.scale)
        w.limit("Sweets", start: today.adding(-30), goal: 1)
        w.build("Gym", start: today.adding(-30), goal: Amount.scale, schedule: .weekdays([.monday]))
        w.progress(read, today.adding(-3), Amount.scale)
        w.progress(read, today, Amount.scale)
        w.rate(water, today.adding(-1), 2)
        XCTAssertEqual(asked(w), [
            "2026-11-16 Gym",              // Monday, 5 days back, never recorded: the 7-day window
            "2026-11-19 Read",             // after its last recorded day before today (the 18th)
            "2026-11-20 Read",
            "2026-11-21 Water",            // nothing before its rating on the 20th; today is open
        ])
        XCTAssertEqual(asked(w, days: 2), ["2026-11-19 Read", "2026-11-20 Read", "2026-11-21 Water"])
        XCTAssertEqual(CatchUp.missed(w.state, today: today).map(\.day), [today.adding(-5), today.adding(-2), today.adding(-1)])
        w.skip(read, today.adding(-1))
        XCTAssertFalse(asked(w).contains("2026-11-20 Read"))
    }

    func testAnswersAreParsedPerKindOfHabit() throws {
        var w = World()
        let read = w.build("Read", start: today, goal: Amount.scale)
        let water = w.build("Water", start: today, goal: 8 * Amount.scale)
        XCTAssertEqual(try CatchUp.parse("", for: read), .leave)
        XCTAssertEqual(try CatchUp.parse("Y", for: read), .done(difficulty: nil))
        XCTAssertEqual(try CatchUp.parse("y 2", for: water), .done(difficulty: 2))
        XCTAssertEqual(try CatchUp.parse("4", for: read), .done(difficulty: 4))
        XCTAssertEqual(try CatchUp.parse("4", for: water), .amount(4 * Amount.scale, difficulty: nil))
        XCTAssertEqual(try CatchUp.parse("12 5", for: water), .amount(12 * Amount.scale, difficulty: 5))
        XCTAssertEqual(try CatchUp.parse("n", for: water), .notDone)
        XCTAssertEqual(try CatchUp.parse("s", for: water), .skip)
        for bad in ["6", "maybe", "y 9", "n 2", "1 2 3"] {
            XCTAssertThrowsError(try CatchUp.parse(bad, for: read), bad)
        }
        XCTAssertThrowsError(try CatchUp.parse("-3", for: water))
    }

    func testDoneRecordsTheRestOfTheGoalAndAnAnswerGoesThroughTheCheckInRules() throws {
        var w = World()
        let water = w.build("Water", start: today.adding(-3), goal: 8 * Amount.scale)
        w.progress(water, today.adding(-1), 3 * Amount.scale)
        let item = CatchUpItem(habit: water, day: today.adding(-1))
        XCTAssertEqual(try CatchUp.changes(.done(difficulty: 2), for: item, today: today, in: w.state),
                       [.progress(water.id, today.adding(-1), delta: 5 * Amount.scale), .rate(water.id, today.adding(-1), 2)])
        XCTAssertEqual(try CatchUp.changes(.notDone, for: item, today: today, in: w.state), [.notDone(water.id, today.adding(-1), true)],
                       "the answer is recorded; the 3 glasses done stay")
        XCTAssertEqual(try CatchUp.changes(.skip, for: item, today: today, in: w.state), [.skip(water.id, today.adding(-1), true)])
        let early = CatchUpItem(habit: water, day: today.adding(-9))
        XCTAssertThrowsError(try CatchUp.changes(.done(difficulty: nil), for: early, today: today, in: w.state))
    }
}
