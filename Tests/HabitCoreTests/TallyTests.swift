import Foundation
import XCTest
import HabitCore

/// Monday 2 March 2026; weeks run Monday to Sunday.
private let monday = LocalDay(year: 2026, month: 3, day: 2)!

/// The prompt segment's count (`✓3/5`): due habits that are not skipped, and how many of
/// them are done, agreeing with the rules' summary of each habit.
final class TallyTests: XCTestCase {
    func testTheTallyCountsDueHabitsNotSkippedAndThoseDone() {
        var w = World()
        let read = w.build("Read", start: monday)
        let water = w.build("Water", start: monday, goal: 8 * Amount.scale)
        let walk = w.build("Walk", start: monday)
        _ = w.build("Stretch", start: monday, schedule: .weekdays([.tuesday]))
        _ = w.build("Later", start: monday.adding(1))
        let sweets = w.limit("Sweets", start: monday, goal: Amount.scale)
        w.progress(read, monday)
        w.progress(water, monday, 3 * Amount.scale)
        w.skip(walk, monday)
        // Read done, Water 3/8, Walk skipped, Stretch not due, Later not started, Sweets within its limit.
        let first = w.state.tally(on: monday)
        XCTAssertEqual([first.done, first.due], [2, 3])
        XCTAssertEqual(Set(first.completed), [read.id, sweets.id])
        XCTAssertEqual(first.left, [water.id], "what is due and not done yet (a status bar's tooltip)")
        w.progress(sweets, monday, 2 * Amount.scale)
        let over = w.state.tally(on: monday)
        XCTAssertEqual([over.done, over.due], [1, 3], "a limit habit over its limit is not done")
        XCTAssertEqual(Set(over.left), [water.id, sweets.id])
    }

    func testAnNPerWeekHabitIsDueUntilItsQuotaIsMetAsTheRulesSay() {
        var w = World()
        let gym = w.build("Gym", start: monday, schedule: .perWeek(2))
        w.progress(gym, monday)
        w.progress(gym, monday.adding(1))
        for offset in 0...6 {
            let day = monday.adding(offset)
            let s = w.state.summary(gym, on: day, today: day)
            let t = w.state.tally(on: day)
            XCTAssertEqual([t.done, t.due], [s.scheduled && s.completed ? 1 : 0, s.scheduled && !s.skipped ? 1 : 0], "day \(offset)")
        }
        let met = w.state.tally(on: monday.adding(2))
        XCTAssertEqual([met.done, met.due], [0, 0], "the quota is met: not due")
    }
}
