import Foundation
import XCTest
import HabitCore

private let monday = LocalDay(year: 2026, month: 3, day: 2)!

final class XPTests: XCTestCase {
    private func assertXP(_ w: World, today: LocalDay, xp: Int, perfectDays: Int, xpToday: Int? = nil,
                          settings: RuleSettings = .init(),
                          file: StaticString = #filePath, line: UInt = #line) {
        let s = w.state.stats(today: today, settings: settings)
        XCTAssertEqual(s.xp, xp, "xp", file: file, line: line)
        XCTAssertEqual(s.perfectDays, perfectDays, "perfect days", file: file, line: line)
        if let xpToday { XCTAssertEqual(s.xpToday, xpToday, "xp today", file: file, line: line) }
        XCTAssertEqual(s.level, LevelInfo(xp: xp), "level follows xp", file: file, line: line)
    }

    func testEachSuccessfulDayEarnsFiftyAndAPerfectDayFiftyMore() {
        var w = World()
        let h = w.build(start: monday)
        w.progress(h, days: [monday, monday.adding(1)])
        let today = monday.adding(2)
        assertXP(w, today: today, xp: 200, perfectDays: 2, xpToday: 0)
        w.progress(h, today)
        assertXP(w, today: today, xp: 300, perfectDays: 3, xpToday: 100)
    }

    func testGoingFarOverTheGoalEarnsTheDayOnlyOnce() {
        var w = World()
        let h = w.build(start: monday, goal: 2)
        w.progress(h, monday, 9)
        assertXP(w, today: monday, xp: 100, perfectDays: 1)
    }

    func testPartialProgressEarnsNothing() {
        var w = World()
        let h = w.build(start: monday, goal: 3)
        w.progress(h, monday, 2)
        assertXP(w, today: monday, xp: 0, perfectDays: 0)
    }

    func testSkippedDaysEarnNoXPAndAreNotPerfectOnTheirOwn() {
        var w = World()
        let h = w.build(start: monday)
        w.progress(h, monday)
        w.skip(h, monday)
        assertXP(w, today: monday, xp: 0, perfectDays: 0)
    }

    func testAPerfectDayNeedsEveryDueHabitDone() {
        var w = World()
        let a = w.build("Read", start: monday)
        let b = w.build("Walk", start: monday)
        w.progress(a, days: [monday, monday.adding(1)])
        w.progress(b, monday)
        // Monday: both done (100 + 50); Tuesday: only Read (50).
        assertXP(w, today: monday.adding(1), xp: 200, perfectDays: 1)
    }

    func testASkippedHabitDoesNotSpoilAPerfectDay() {
        var w = World()
        let a = w.build("Read", start: monday)
        let b = w.build("Walk", start: monday)
        w.progress(a, monday)
        w.skip(b, monday)
        assertXP(w, today: monday, xp: 100, perfectDays: 1)
    }

    func testHabitsNotDueThatDayDoNotSpoilAPerfectDay() {
        var w = World()
        let daily = w.build("Read", start: monday)
        _ = w.build("Gym", start: monday, schedule: .weekdays([.monday, .wednesday, .friday]))
        let tuesday = monday.adding(1)
        w.progress(daily, tuesday)
        // Monday: both due, neither done. Tuesday: only Read due, and done.
        assertXP(w, today: tuesday, xp: 100, perfectDays: 1)
    }

    func testASuccessOnADayOffTheScheduleEarnsNothing() {
        var w = World()
        let gym = w.build("Gym", start: monday, schedule: .weekdays([.monday, .wednesday, .friday]))
        let plants = w.build("Plants", start: monday, schedule: .everyNDays(3))
        let tuesday = monday.adding(1)
        w.progress(gym, tuesday)
        w.progress(plants, tuesday)
        // Monday: both due and missed; Tuesday: neither due, so nothing counts and no day is perfect.
        assertXP(w, today: tuesday, xp: 0, perfectDays: 0)
    }

    func testFirstPerfectDayReachesLevelTwo() {
        var w = World()
        let h = w.build(start: monday)
        w.progress(h, monday)
        let s = w.state.stats(today: monday)
        XCTAssertEqual(s.xp, 100)
        XCTAssertEqual(s.level.level, 2)
        XCTAssertEqual(s.level.xpIntoLevel, 0)
        XCTAssertEqual(s.level.xpForNextLevel, 200)
    }

    func testUndoTakesXPBack() {
        var w = World()
        let h = w.build(start: monday)
        w.progress(h, monday)
        assertXP(w, today: monday, xp: 100, perfectDays: 1)
        w.progress(h, monday, -Amount.scale)
        assertXP(w, today: monday, xp: 0, perfectDays: 0, xpToday: 0)
    }

    func testTwoDevicesCheckingInTheSameDayDoNotDoubleCount() {
        var state = HabitState()
        var a = TestDevice(1), b = TestDevice(2)
        let h = habitID(1)
        let create = a.op(.create(h, HabitFields(name: "Read", startDate: monday)))
        applyOrFail(create, to: &state)
        applyOrFail(a.op(.progress(h, monday, delta: Amount.scale)), to: &state)
        applyOrFail(b.op(.progress(h, monday, delta: Amount.scale)), to: &state)
        XCTAssertEqual(state.progress(h, monday), 2 * Amount.scale)
        let s = state.stats(today: monday)
        XCTAssertEqual(s.xp, 100)
        XCTAssertEqual(s.checkIns, 1, "a yes/no day reads as done once")
    }

    func testArchivedHabitsKeepXPEarnedBeforeTheArchiveDate() {
        var w = World()
        let a = w.build("Read", start: monday)
        let b = w.build("Walk", start: monday)
        let four = days(from: monday, count: 4)
        w.progress(a, days: four)
        w.progress(b, days: four)
        let today = monday.adding(3)
        assertXP(w, today: today, xp: 8 * 50 + 4 * 50, perfectDays: 4)
        w.set(a, .archivedFrom(monday.adding(2)))
        // Read keeps Monday and Tuesday; Walk alone makes Wednesday and Thursday perfect.
        assertXP(w, today: today, xp: 6 * 50 + 4 * 50, perfectDays: 4)
        let s = w.state.stats(today: today)
        XCTAssertEqual(s.habits, 1)
        XCTAssertEqual(s.archivedHabits, 1)
    }

    func testDeletedHabitsTakeTheirXPAwayAndRestoreBringsItBack() {
        var w = World()
        let a = w.build("Read", start: monday)
        let b = w.build("Walk", start: monday)
        w.progress(a, days: [monday, monday.adding(1)])
        w.progress(b, monday)
        let today = monday.adding(1)
        assertXP(w, today: today, xp: 200, perfectDays: 1)
        let deleteOp = w.delete(a)
        // Walk alone: Monday done (perfect), Tuesday missed.
        assertXP(w, today: today, xp: 100, perfectDays: 1)
        XCTAssertEqual(w.state.stats(today: today).checkIns, 1)
        _ = w.apply(.restore(a.id, deleteOp: deleteOp))
        assertXP(w, today: today, xp: 200, perfectDays: 1)
    }

    func testLimitHabitEarnsXPForEveryDayUnderTheCeilingOnceTheDayIsOver() {
        var w = World()
        let h = w.limit(start: monday, goal: 1)
        let today = monday.adding(2)
        // Monday and Tuesday are over and settled; Wednesday (today) is provisional.
        assertXP(w, today: today, xp: 200, perfectDays: 2, xpToday: 0)
        XCTAssertEqual(w.state.stats(today: today).xpProvisional, 100)
        w.progress(h, monday.adding(1), 2)
        assertXP(w, today: today, xp: 100, perfectDays: 1)
        assertXP(w, today: today.adding(1), xp: 200, perfectDays: 2, xpToday: 0)
    }

    func testANewLimitHabitEarnsNothingSettledOnItsFirstDay() {
        var w = World()
        w.limit(start: monday, goal: 1)
        assertXP(w, today: monday, xp: 0, perfectDays: 0, xpToday: 0)
        XCTAssertEqual(w.state.stats(today: monday).xpProvisional, 100, "50 for the day, 50 for the perfect day")
        assertXP(w, today: monday.adding(1), xp: 100, perfectDays: 1, xpToday: 0)
    }

    func testGoingOverALimitTodayNeverTakesBackSettledXP() {
        var w = World()
        let read = w.build("Read", start: monday)
        let sweets = w.limit("Sweets", start: monday, goal: 1)
        w.progress(read, monday)
        // Read is done: 50 settled; Sweets within its limit and the perfect day are provisional.
        assertXP(w, today: monday, xp: 50, perfectDays: 0, xpToday: 50)
        XCTAssertEqual(w.state.stats(today: monday).xpProvisional, 100)
        w.progress(sweets, monday, 3)
        assertXP(w, today: monday, xp: 50, perfectDays: 0, xpToday: 50)
        XCTAssertEqual(w.state.stats(today: monday).xpProvisional, 0, "over the limit: nothing more to come")
        // The next day Monday is settled as it ended: Read's 50 only.
        assertXP(w, today: monday.adding(1), xp: 50, perfectDays: 0, xpToday: 0)
        w.progress(sweets, monday, -2)
        assertXP(w, today: monday.adding(1), xp: 150, perfectDays: 1, xpToday: 0)
    }

    func testTodaysPerfectDayIsSettledWhenNoLimitHabitTakesPart() {
        var w = World()
        let read = w.build("Read", start: monday)
        let sweets = w.limit("Sweets", start: monday, goal: 1)
        w.skip(sweets, monday)
        w.progress(read, monday)
        assertXP(w, today: monday, xp: 100, perfectDays: 1, xpToday: 100)
        XCTAssertEqual(w.state.stats(today: monday).xpProvisional, 0)
    }

    func testASuccessBeyondTheWeeklyQuotaIsNotDueAndMakesNoPerfectDay() {
        var w = World()
        let h = w.build(start: monday, schedule: .perWeek(1))
        w.progress(h, days: [monday, monday.adding(1)])
        let tuesday = monday.adding(1)
        assertXP(w, today: tuesday, xp: 100, perfectDays: 1, xpToday: 0)
        let s = w.state.summary(h, on: tuesday, today: tuesday)
        XCTAssertTrue(s.completed)
        XCTAssertFalse(s.scheduled, "the quota was met on Monday")
        XCTAssertEqual(w.state.history(h, through: tuesday).map(\.scheduled), [true, false])
        XCTAssertTrue(w.state.summary(h, on: monday, today: tuesday).scheduled, "the day that met the quota is due")
    }

    func testPerWeekHabitEarnsXPForAtMostNDaysAWeek() {
        var w = World()
        let h = w.build(start: monday, schedule: .perWeek(2))
        w.progress(h, days: days(from: monday, count: 4)) // Monday to Thursday
        let sunday = monday.adding(6)
        // Monday and Tuesday count (and are perfect); Wednesday and Thursday are over the quota.
        assertXP(w, today: sunday, xp: 200, perfectDays: 2)
        w.progress(h, monday.adding(7))
        assertXP(w, today: monday.adding(7), xp: 300, perfectDays: 3, xpToday: 100)
    }

    func testPerWeekHabitCountsOnlyOnDaysItSucceedsForPerfectDays() {
        var w = World()
        let weekly = w.build("Swim", start: monday, schedule: .perWeek(1))
        let daily = w.build("Read", start: monday)
        w.progress(weekly, days: [monday, monday.adding(1)])
        w.progress(daily, days: [monday, monday.adding(2)])
        // Mon: both count, perfect (150). Tue: Swim over quota, Read missed (0). Wed: Read, perfect (100).
        assertXP(w, today: monday.adding(2), xp: 250, perfectDays: 2)
    }

    func testWeekStartDecidesWhenThePerWeekQuotaResets() {
        var w = World()
        let h = w.build(start: monday, schedule: .perWeek(1))
        let saturday = monday.adding(5), sunday = monday.adding(6)
        w.progress(h, days: [saturday, sunday])
        assertXP(w, today: sunday, xp: 100, perfectDays: 1, settings: RuleSettings(weekStart: .monday))
        assertXP(w, today: sunday, xp: 200, perfectDays: 2, settings: RuleSettings(weekStart: .sunday))
    }

    func testDaysOutsideStartAndTodayEarnNothing() {
        var w = World()
        let h = w.build(start: monday)
        w.progress(h, monday.adding(-1)) // before the start
        w.progress(h, monday.adding(5))  // after today
        assertXP(w, today: monday.adding(1), xp: 0, perfectDays: 0)
        assertXP(w, today: monday.adding(-2), xp: 0, perfectDays: 0)
    }

    func testStatsCountHabitsAndCheckIns() {
        var w = World()
        let a = w.build("Read", start: monday, goal: 2)
        _ = w.build("Later", start: monday.adding(30))
        w.progress(a, monday, 3)
        w.progress(a, monday.adding(1), 1)
        let s = w.state.stats(today: monday.adding(1))
        XCTAssertEqual(s.habits, 2, "a habit that has not started yet still counts")
        XCTAssertEqual(s.archivedHabits, 0)
        XCTAssertEqual(s.checkIns, 2, "two habit-days with progress, however much each holds")
    }

    func testCheckInsCountHabitDaysAndAmountsStayPerHabitInTheirUnit() {
        var w = World()
        let water = w.create(HabitFields(name: "Water", goal: 8 * Amount.scale, unit: "glasses", startDate: monday))
        let run = w.create(HabitFields(name: "Run", goal: 2_500, unit: "km", startDate: monday))
        let read = w.build("Read", start: monday)
        _ = w.apply(.progress(water.id, monday, delta: 8 * Amount.scale))
        _ = w.apply(.progress(water.id, monday.adding(1), delta: 3 * Amount.scale))
        _ = w.apply(.progress(run.id, monday, delta: 5_250))
        _ = w.apply(.progress(read.id, monday, delta: Amount.scale))
        _ = w.apply(.progress(read.id, monday, delta: Amount.scale))
        // A day taken back to nothing is not a check-in.
        _ = w.apply(.progress(read.id, monday.adding(1), delta: Amount.scale))
        _ = w.apply(.progress(read.id, monday.adding(1), delta: -Amount.scale))
        XCTAssertEqual(w.state.stats(today: monday.adding(1)).checkIns, 4, "Water twice, Run once, Read once: not 8 + 3 + 5.25 + 1")
        XCTAssertEqual(w.state.checkIns(water).days, 2)
        XCTAssertEqual(w.state.checkIns(water).amount, 11 * Amount.scale)
        XCTAssertEqual(w.state.checkIns(run).amount, 5_250)
        XCTAssertEqual(w.state.checkIns(read).days, 1)
        XCTAssertEqual(w.state.checkIns(read).amount, Amount.scale, "a yes/no day counts one")
    }
}

final class LevelTests: XCTestCase {
    private func assertLevel(_ xp: Int, level: Int, into: Int, forNext: Int,
                             file: StaticString = #filePath, line: UInt = #line) {
        let info = LevelInfo(xp: xp)
        XCTAssertEqual(info.level, level, "level at \(xp) XP", file: file, line: line)
        XCTAssertEqual(info.xpIntoLevel, into, "xp into level at \(xp) XP", file: file, line: line)
        XCTAssertEqual(info.xpForNextLevel, forNext, "xp for next level at \(xp) XP", file: file, line: line)
        XCTAssertEqual(info.xpToNextLevel, forNext - into, file: file, line: line)
    }

    func testLevelThresholdsAreFiftyTimesLTimesLMinusOne() {
        assertLevel(0, level: 1, into: 0, forNext: 100)
        assertLevel(99, level: 1, into: 99, forNext: 100)
        assertLevel(100, level: 2, into: 0, forNext: 200)
        assertLevel(299, level: 2, into: 199, forNext: 200)
        assertLevel(300, level: 3, into: 0, forNext: 300)
        assertLevel(600, level: 4, into: 0, forNext: 400)
        assertLevel(999, level: 4, into: 399, forNext: 400)
        assertLevel(1000, level: 5, into: 0, forNext: 500)
        assertLevel(1050, level: 5, into: 50, forNext: 500)
        XCTAssertEqual([1, 2, 3, 4, 5].map(LevelInfo.threshold(level:)), [0, 100, 300, 600, 1000])
    }

    func testNegativeXPIsLevelOne() {
        assertLevel(-50, level: 1, into: 0, forNext: 100)
    }

    func testEveryXPValueFallsInsideItsLevel() {
        for xp in stride(from: 0, through: 2_000_000, by: 50) {
            let info = LevelInfo(xp: xp)
            XCTAssertLessThanOrEqual(LevelInfo.threshold(level: info.level), xp)
            XCTAssertGreaterThan(LevelInfo.threshold(level: info.level + 1), xp)
            XCTAssertEqual(info.xpIntoLevel, xp - LevelInfo.threshold(level: info.level))
            XCTAssertEqual(info.xpForNextLevel,
                           LevelInfo.threshold(level: info.level + 1) - LevelInfo.threshold(level: info.level))
        }
        // Exactly at, and one below, large thresholds (no floating-point drift).
        for level in [100, 1_000, 10_000, 100_000] {
            let t = LevelInfo.threshold(level: level)
            XCTAssertEqual(LevelInfo(xp: t).level, level)
            XCTAssertEqual(LevelInfo(xp: t - 1).level, level - 1)
        }
    }
}

final class DifficultyTests: XCTestCase {
    func testAverageCoversTheLastSevenAndThirtyRatedDays() throws {
        var w = World()
        let h = w.build(start: monday)
        // 40 days: four days rated 1, 2, 3, 4, then a day left unrated, repeated.
        var ratings: [(LocalDay, Int)] = []
        for i in 0..<40 where i % 5 != 4 {
            let r = i % 5 + 1
            w.rate(h, monday.adding(i), r)
            ratings.append((monday.adding(i), r))
        }
        let asOf = monday.adding(39)
        func expected(_ n: Int) -> Double {
            let last = ratings.suffix(n)
            return Double(last.reduce(0) { $0 + $1.1 }) / Double(last.count)
        }
        assertClose(try XCTUnwrap(w.state.difficultyAverage(h, asOf: asOf, count: 7)), expected(7), accuracy: 1e-12)
        assertClose(try XCTUnwrap(w.state.difficultyAverage(h, asOf: asOf, count: 30)), expected(30), accuracy: 1e-12)
        // Last 7 rated days: 4 (day 38) 3 2 1 | 4 3 2 → 19/7.
        assertClose(try XCTUnwrap(w.state.difficultyAverage(h, asOf: asOf, count: 7)), 19.0 / 7.0, accuracy: 1e-12)
    }

    func testRatingsAfterTheDayAskedAreIgnored() throws {
        var w = World()
        let h = w.build(start: monday)
        w.rate(h, monday, 2)
        w.rate(h, monday.adding(1), 4)
        w.rate(h, monday.adding(2), 5)
        assertClose(try XCTUnwrap(w.state.difficultyAverage(h, asOf: monday.adding(1), count: 7)), 3, accuracy: 1e-12)
    }

    func testClearedAndOverwrittenRatingsUseTheLatestValue() throws {
        var w = World()
        let h = w.build(start: monday)
        w.rate(h, monday, 1)
        w.rate(h, monday, 5)
        w.rate(h, monday.adding(1), 3)
        w.rate(h, monday.adding(1), nil)
        XCTAssertEqual(w.state.difficulty(h.id, monday), 5)
        XCTAssertNil(w.state.difficulty(h.id, monday.adding(1)))
        assertClose(try XCTUnwrap(w.state.difficultyAverage(h, asOf: monday.adding(1), count: 7)), 5, accuracy: 1e-12)
    }

    func testNoRatingsGiveNoAverage() {
        var w = World()
        let h = w.build(start: monday)
        w.progress(h, monday)
        XCTAssertNil(w.state.difficultyAverage(h, asOf: monday, count: 7))
    }
}
