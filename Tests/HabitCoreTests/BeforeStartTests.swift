import XCTest
import HabitCore

/// Issue 39.3: a day before a habit's start date is not tracked, whatever it holds (a
/// check-in kept from before the start was moved later): not due, not completed, not
/// exceeded, not in the check-in count; strength there is the walk's starting score by the
/// first definition.
final class BeforeStartTests: XCTestCase {
    func testADayBeforeTheStartIsNeverDueCompletedOrExceededWhateverItHolds() {
        var w = World()
        let start = day("2026-11-01")
        let read = w.build("Read", start: start)
        let sweets = w.limit("Sweets", start: start, goal: Amount.scale)
        for d in days(from: day("2026-10-28"), count: 8) { w.progress(read, d) }
        w.progress(sweets, day("2026-10-30"), 3 * Amount.scale)
        // Move both starts later: the check-ins before them are kept but count for nothing.
        w.set(read, .startDate(day("2026-11-03")))
        w.set(sweets, .startDate(day("2026-11-03")))
        let today = day("2026-11-05")
        for h in [read, sweets] {
            let habit = w.habit(h.id)
            let s = w.state.summary(habit, on: day("2026-11-02"), today: today)
            XCTAssertTrue(s.line.isBeforeStart)
            XCTAssertFalse(s.completed, "\(habit.name): not started, so not done")
            XCTAssertFalse(s.scheduled)
            XCTAssertFalse(s.exceeded)
            XCTAssertFalse(w.state.summary(habit, on: day("2026-11-03"), today: today).line.isBeforeStart)
        }
        XCTAssertFalse(w.state.summary(w.habit(sweets.id), on: day("2026-10-30"), today: today).exceeded)
        let readNow = w.habit(read.id)
        XCTAssertEqual(w.state.checkIns(readNow).days, 2, "11-03 and 11-04 count; five days before the start do not")
        XCTAssertEqual(w.state.checkInsBeforeStart(readNow), 6)
        XCTAssertEqual(w.state.summary(readNow, on: today, today: today).streak, 2)
    }

    func testStrengthBeforeTheStartIsTheStartingScoreOfTheFirstDefinition() {
        var w = World()
        let start = day("2026-11-01")
        // Created as a limit habit, made a build habit from 11-10: before the start it is
        // scored as it began, a limit habit.
        let h = w.limit("Sweets", start: start, goal: Amount.scale)
        _ = w.apply(.setFrom(h.id, day("2026-11-10"), .kind(.build)))
        let habit = w.habit(h.id)
        XCTAssertEqual(habit.kind, .build)
        XCTAssertEqual(w.state.strength(habit, asOf: start.adding(-1)), 1)
        XCTAssertEqual(w.state.strength(habit, asOf: start), 1, accuracy: 1e-12, "its first day, nothing eaten, succeeds")
    }

    func testTheAmountInAllAddsOnlyDaysOfTheCurrentUnit() {
        var w = World()
        let start = day("2026-11-01")
        var fields = HabitFields(name: "Run", kind: .build, goal: 5 * Amount.scale, startDate: start)
        fields.unit = "km"
        let run = w.create(fields)
        w.progress(run, day("2026-11-01"), 5 * Amount.scale)
        _ = w.apply(.setFrom(run.id, day("2026-11-03"), .unit("mi")))
        w.progress(run, day("2026-11-03"), 3 * Amount.scale)
        w.progress(run, day("2026-11-04"), 2 * Amount.scale)
        let ins = w.state.checkIns(w.habit(run.id))
        XCTAssertEqual(ins.days, 3)
        XCTAssertEqual(ins.amount, 5 * Amount.scale, "3 + 2 mi; the 5 km of the first day are not added to miles")
    }
}
