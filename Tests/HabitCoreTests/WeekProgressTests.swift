import Foundation
import XCTest
import HabitCore

/// Monday 2 March 2026; weeks run Monday to Sunday.
private let monday = LocalDay(year: 2026, month: 3, day: 2)!

/// An N-per-week habit's week as the list shows it (`1/3 this wk`), and which of its days
/// count as misses.
final class WeekProgressTests: XCTestCase {
    func testTheWeeksProgressCountsSuccessesThroughTheDayAgainstWhatTheWeekAsksFor() {
        var w = World()
        let h = w.build("Gym", start: monday, schedule: .perWeek(3))
        w.progress(h, monday)
        w.progress(h, monday.adding(2))
        let wednesday = w.state.summary(h, on: monday.adding(2), today: monday.adding(2))
        XCTAssertEqual(wednesday.weekDone, 2)
        XCTAssertEqual(wednesday.weekQuota, 3)
        XCTAssertEqual(w.state.summary(h, on: monday, today: monday.adding(2)).weekDone, 1, "counted through the day asked about")
        XCTAssertEqual(w.state.summary(h, on: monday.adding(7), today: monday.adding(7)).weekDone, 0, "a new week starts at 0")
        // Five days skipped leave two: the week asks for two.
        for d in 2...6 { w.skip(h, monday.adding(7 + d)) }
        XCTAssertEqual(w.state.summary(h, on: monday.adding(7), today: monday.adding(7)).weekQuota, 2)
        let daily = w.build("Read", start: monday)
        XCTAssertNil(w.state.summary(daily, on: monday, today: monday).weekDone, "only N-per-week habits have a week's progress")
    }

    func testAnOpenDayOfAnNPerWeekHabitIsAMissOnlyOnceItsWeekEndedShort() {
        var w = World()
        let h = w.build("Gym", start: monday, schedule: .perWeek(2))
        w.progress(h, monday)             // week 1: only one of two
        w.progress(h, monday.adding(7))   // week 2: two of two
        w.progress(h, monday.adding(9))
        w.progress(h, monday.adding(14))  // week 3, running
        let today = monday.adding(16)
        let history = w.state.history(h, through: today, today: today)
        func missed(_ offset: Int) -> Bool? { history.first { $0.day == monday.adding(offset) }?.missed }
        XCTAssertEqual(missed(0), false, "done")
        XCTAssertEqual(missed(1), true, "week 1 ended short: its open days are misses")
        XCTAssertEqual(missed(6), true)
        XCTAssertEqual(missed(8), false, "week 2 met its quota: open days are neutral")
        XCTAssertEqual(missed(15), false, "week 3 is still running")
        // The same history read while week 1 was still running: nothing missed yet.
        XCTAssertEqual(w.state.history(h, through: monday.adding(3), today: monday.adding(3)).map(\.missed),
                       [false, false, false, false])
    }

    func testADueDayOfAFixedScheduleIsAMissOnceItIsOver() {
        var w = World()
        let h = w.build("Read", start: monday, schedule: .weekdays([.monday, .wednesday]))
        w.progress(h, monday.adding(2))
        let history = w.state.history(h, through: monday.adding(7), today: monday.adding(7))
        XCTAssertEqual(history.map(\.missed), [true, false, false, false, false, false, false, false],
                       "Monday missed; Wednesday done; other days not due; today (the next Monday) not over")
    }
}
