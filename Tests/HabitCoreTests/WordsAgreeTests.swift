import XCTest
import HabitCore

/// Issue 32 (Text): counts agree with their nouns through one helper, streaks say their
/// unit, and a day's edits say what they are about.
final class WordsAgreeTests: XCTestCase {
    func testEveryCountAgreesWithItsNoun() {
        let table: [(Int, String, String)] = [
            (0, "operation", "0 operations"), (1, "operation", "1 operation"), (2, "operation", "2 operations"),
            (1, "batch", "1 batch"), (3, "batch", "3 batches"), (1, "device", "1 device"), (2, "device", "2 devices"),
            (2, "entry", "2 entries"), (2, "day", "2 days"), (1, "habit-day", "1 habit-day"), (5, "box", "5 boxes"),
            (1, "occurrence", "1 occurrence"), (4, "occurrence", "4 occurrences"), (-1, "day", "-1 day"),
        ]
        for (n, noun, expected) in table { XCTAssertEqual(Plural.count(n, noun), expected, "\(n) \(noun)") }
        XCTAssertEqual(Plural.count(UInt64(1), "operation"), "1 operation")
        XCTAssertEqual(Plural.count(2, "person", "people"), "2 people")
        XCTAssertEqual(Plural.noun(1, "is", "are"), "is")
        XCTAssertEqual(Plural.noun(2, "is", "are"), "are")
    }

    private func line(_ schedule: Schedule, doneDays: Int, every step: Int = 1) -> DayLine {
        let start = LocalDay("2026-10-01")!, id = HabitID("00000000000000e1")!
        var device = TestDevice(1)
        var state = HabitState()
        applyOrFail(device.op(.create(id, HabitFields(name: "Stretch", schedule: schedule, startDate: start))), to: &state)
        for i in 0..<doneDays { applyOrFail(device.op(.progress(id, start.adding(i * step), delta: Amount.scale)), to: &state) }
        let last = start.adding((doneDays - 1) * step)
        return state.dayLine(state.habit(id)!, on: last, today: last, settings: RuleSettings())
    }

    func testAStreakSaysWhatItCountsInTheNumberItTakes() {
        XCTAssertEqual(line(.daily, doneDays: 1).streakText, "1 day")
        XCTAssertEqual(line(.daily, doneDays: 5).streakText, "5 days")
        // Every three days, done four times in a row: four occurrences over twelve days,
        // not "4 days".
        let everyThird = line(.everyNDays(3), doneDays: 4, every: 3)
        XCTAssertEqual(everyThird.streak, 4)
        XCTAssertEqual(everyThird.streakText, "4 occurrences")
        XCTAssertEqual(everyThird.streakAbbreviation, "x")
        XCTAssertEqual(line(.perWeek(1), doneDays: 1).streakText, "1 week")
    }

    func testSkippingADayTheHabitIsNotDueOnRecordsNothingAndSaysWhy() throws {
        let id = HabitID("00000000000000e2")!, today = LocalDay("2026-11-20")!
        var device = TestDevice(1)
        var state = HabitState()
        applyOrFail(device.op(.create(id, HabitFields(name: "Read", schedule: .weekdays([.monday, .tuesday, .wednesday, .thursday, .friday]),
                                                      startDate: LocalDay("2026-11-01")!))), to: &state)
        let habit = state.habit(id)!
        let saturday = LocalDay("2026-12-05")!
        XCTAssertThrowsError(try Edits.setSkipped(habit, on: saturday, true, today: today, in: state)) { error in
            XCTAssertEqual("\(error)", "'Read' is not due on Sat 2026-12-05 (weekdays); nothing to skip")
        }
        XCTAssertEqual(try Edits.setSkipped(habit, on: LocalDay("2026-12-04")!, true, today: today, in: state),
                       [.skip(id, LocalDay("2026-12-04")!, true)], "a due day (a Friday) is skipped")
    }

    func testAFutureNoteOrRatingSaysWhatItIsNotCheckIns() throws {
        let id = HabitID("00000000000000e3")!, today = LocalDay("2026-11-20")!
        var device = TestDevice(1)
        var state = HabitState()
        applyOrFail(device.op(.create(id, HabitFields(name: "Read", startDate: LocalDay("2026-11-01")!))), to: &state)
        let habit = state.habit(id)!, tomorrow = today.adding(1)
        XCTAssertThrowsError(try Edits.note(habit, on: tomorrow, "plan", today: today, in: state)) {
            XCTAssertEqual("\($0)", "2026-11-21 is in the future (today is 2026-11-20); notes are for today or earlier")
        }
        XCTAssertThrowsError(try Edits.rate(habit, on: tomorrow, 3, today: today, in: state)) {
            XCTAssertEqual("\($0)", "2026-11-21 is in the future (today is 2026-11-20); ratings are for today or earlier")
        }
        XCTAssertThrowsError(try Edits.checkIn(habit, on: tomorrow, amount: Amount.scale, today: today, in: state)) {
            XCTAssertEqual("\($0)", "2026-11-21 is in the future (today is 2026-11-20); check-ins are for today or earlier")
        }
    }
}
