import Foundation
import XCTest
import HabitCore

/// Monday 2 March 2026 is the start of most scenarios; weeks run Monday to Sunday.
private let monday = LocalDay(year: 2026, month: 3, day: 2)!

final class CompletionTests: XCTestCase {
    func testBuildDaySucceedsOnceProgressReachesTheGoal() {
        var w = World()
        let h = w.build(start: monday, goal: 3)
        XCTAssertFalse(w.state.summary(h, on: monday, today: monday).completed, "nothing recorded")
        w.progress(h, monday, 2)
        XCTAssertFalse(w.state.summary(h, on: monday, today: monday).completed, "2 of 3")
        w.progress(h, monday, 1)
        XCTAssertTrue(w.state.summary(h, on: monday, today: monday).completed, "3 of 3")
        w.progress(h, monday, 2)
        let s = w.state.summary(h, on: monday, today: monday)
        XCTAssertTrue(s.completed, "5 of 3")
        XCTAssertEqual(s.progress, 5)
        XCTAssertFalse(s.exceeded)
    }

    func testLimitDayWithNothingRecordedSucceedsAndFailsOnlyAboveTheCeiling() {
        var w = World()
        let h = w.limit(start: monday, goal: 2)
        var s = w.state.summary(h, on: monday, today: monday)
        XCTAssertTrue(s.completed, "nothing recorded counts as 0")
        XCTAssertEqual(s.progress, 0)
        w.progress(h, monday, 2)
        s = w.state.summary(h, on: monday, today: monday)
        XCTAssertTrue(s.completed, "exactly at the ceiling")
        XCTAssertFalse(s.exceeded)
        w.progress(h, monday, 1)
        s = w.state.summary(h, on: monday, today: monday)
        XCTAssertFalse(s.completed, "3 is over a ceiling of 2")
        XCTAssertTrue(s.exceeded)
    }

    func testLimitOfZeroFailsOnAnyProgress() {
        var w = World()
        let h = w.limit(start: monday, goal: 0)
        XCTAssertTrue(w.state.summary(h, on: monday, today: monday).completed)
        w.progress(h, monday, 1)
        XCTAssertFalse(w.state.summary(h, on: monday, today: monday).completed)
    }

    func testUndoBelowZeroShowsZeroProgress() {
        var w = World()
        let h = w.build(start: monday)
        w.progress(h, monday, 1)
        w.progress(h, monday, -3)
        XCTAssertEqual(w.state.progress(h.id, monday), 0)
        XCTAssertEqual(w.state.share(h.id, monday, device: w.device.id), -2)
        XCTAssertFalse(w.state.summary(h, on: monday, today: monday).completed)
    }

    func testSkippedDayIsReportedAndUnskipTakesItBack() {
        var w = World()
        let h = w.build(start: monday)
        w.skip(h, monday)
        XCTAssertTrue(w.state.summary(h, on: monday, today: monday).skipped)
        w.skip(h, monday, false)
        XCTAssertFalse(w.state.isSkipped(h.id, monday))
    }

    func testASkippedDayIsNeverCompletedAndAgreesWithStreaksAndXP() {
        var w = World()
        let read = w.build("Read", start: monday)
        let sweets = w.limit("Sweets", start: monday, goal: 1)
        w.progress(read, days: [monday, monday.adding(1)])
        w.progress(sweets, monday.adding(1), 3)
        let tuesday = monday.adding(1)
        w.skip(read, tuesday)
        w.skip(sweets, tuesday)
        let r = w.state.summary(read, on: tuesday, today: tuesday.adding(1))
        XCTAssertTrue(r.skipped)
        XCTAssertEqual(r.progress, Amount.scale, "the progress is still shown")
        XCTAssertFalse(r.completed, "but a skipped day is not completed")
        XCTAssertEqual(r.streak, 1, "Monday only: the skipped Tuesday does not count")
        let s = w.state.summary(sweets, on: tuesday, today: tuesday.adding(1))
        XCTAssertFalse(s.completed)
        XCTAssertFalse(s.exceeded, "a skipped day is not exceeded either")
        let history = w.state.history(read, through: tuesday)
        XCTAssertEqual(history.map(\.completed), [true, false])
        // XP: Monday's two habit-days and its perfect day; Tuesday earns nothing.
        XCTAssertEqual(w.state.stats(today: tuesday.adding(1)).xp, 150)
    }

    func testAPastDayHasNoGraceItIsOver() {
        // `list --date` for a past day: an unfinished day is a missed one.
        var w = World()
        let h = w.build(start: monday)
        w.progress(h, days: [monday, monday.adding(1)])
        let wednesday = monday.adding(2)
        XCTAssertEqual(w.state.summary(h, on: wednesday, today: wednesday).streak, 2, "today: pending, not broken")
        XCTAssertEqual(w.state.summary(h, on: wednesday, today: wednesday.adding(1)).streak, 0, "over: broken")
    }

    func testAnArchiveFromTomorrowLeavesTheHabitTrackedToday() {
        var w = World()
        var h = w.build(start: monday)
        h = w.set(h, .archivedFrom(monday.adding(1)))
        XCTAssertTrue(h.isActive(on: monday))
        XCTAssertEqual(w.state.stats(today: monday).habits, 1)
        XCTAssertEqual(w.state.stats(today: monday).archivedHabits, 0)
        XCTAssertEqual(w.state.stats(today: monday.adding(1)).habits, 0)
        XCTAssertEqual(w.state.stats(today: monday.adding(1)).archivedHabits, 1)
    }

    func testPerWeekHabitIsDueUntilTheWeeksQuotaIsMet() {
        var w = World()
        let h = w.build(start: monday, schedule: .perWeek(2))
        XCTAssertTrue(w.state.isDue(h, on: monday))
        w.progress(h, monday)
        XCTAssertTrue(w.state.isDue(h, on: monday.adding(1)))
        w.progress(h, monday.adding(1))
        XCTAssertFalse(w.state.isDue(h, on: monday.adding(2)), "quota of 2 met on Tuesday")
        XCTAssertTrue(w.state.summary(h, on: monday.adding(1), today: monday.adding(2)).scheduled,
                      "a day that counted toward the quota stays scheduled")
        w.progress(h, monday.adding(2))
        XCTAssertFalse(w.state.summary(h, on: monday.adding(2), today: monday.adding(2)).scheduled,
                       "a third success in a 2/week habit is not due")
        XCTAssertTrue(w.state.isDue(h, on: monday.adding(7)), "a new week starts over")
        XCTAssertFalse(w.state.isDue(h, on: monday.adding(-1)), "not due before the start date")
    }
}

final class DailyStreakTests: XCTestCase {
    private func assertStreak(_ w: World, _ h: Habit, today: LocalDay, current: Int, best: Int,
                              settings: RuleSettings = .init(),
                              file: StaticString = #filePath, line: UInt = #line) {
        let s = w.state.streaks(h, asOf: today, today: today, settings: settings)
        XCTAssertEqual(s.current, current, "current streak", file: file, line: line)
        XCTAssertEqual(s.best, best, "best streak", file: file, line: line)
    }

    func testConsecutiveSuccessesEndingYesterdayAreTheCurrentStreakWhileTodayIsPending() {
        var w = World()
        let h = w.build(start: monday)
        let today = day("2026-03-11")
        w.progress(h, days: days(from: day("2026-03-07"), count: 4)) // 7th–10th
        assertStreak(w, h, today: today, current: 4, best: 4)
    }

    func testTodayCountsOnceItSucceeds() {
        var w = World()
        let h = w.build(start: monday, goal: 2)
        let today = day("2026-03-11")
        w.progress(h, days: days(from: day("2026-03-07"), count: 4), 2)
        w.progress(h, today, 1)
        assertStreak(w, h, today: today, current: 4, best: 4)
        w.progress(h, today, 1)
        assertStreak(w, h, today: today, current: 5, best: 5)
    }

    func testAMissedPastDayBreaksTheStreakAndBestKeepsTheLongestRun() {
        var w = World()
        let h = w.build(start: monday)
        let today = day("2026-03-11")
        w.progress(h, days: days(from: monday, count: 5))             // 2nd–6th: 5 days
        w.progress(h, days: days(from: day("2026-03-08"), count: 3))  // 8th–10th, missed the 7th
        assertStreak(w, h, today: today, current: 3, best: 5)
    }

    func testNoSuccessYesterdayMeansNoCurrentStreak() {
        var w = World()
        let h = w.build(start: monday)
        w.progress(h, days: days(from: monday, count: 3))
        assertStreak(w, h, today: day("2026-03-06"), current: 0, best: 3)
    }

    func testSkippedDayNeitherCountsNorBreaksStreak() {
        var w = World()
        let h = w.build(start: monday)
        let today = day("2026-03-11")
        w.progress(h, days: [day("2026-03-07"), day("2026-03-08"), day("2026-03-10")])
        w.skip(h, day("2026-03-09"))
        assertStreak(w, h, today: today, current: 3, best: 3)
        // Unskipping turns the 9th back into a missed day.
        w.skip(h, day("2026-03-09"), false)
        assertStreak(w, h, today: today, current: 1, best: 2)
    }

    func testASkippedDayDoesNotCountEvenWithProgressRecorded() {
        var w = World()
        let h = w.build(start: monday)
        let today = day("2026-03-05")
        w.progress(h, days: days(from: monday, count: 3))
        w.skip(h, day("2026-03-03"))
        assertStreak(w, h, today: today, current: 2, best: 2)
    }

    func testSkippingTodayKeepsYesterdaysStreak() {
        var w = World()
        let h = w.build(start: monday)
        let today = day("2026-03-05")
        w.progress(h, days: days(from: monday, count: 3))
        w.skip(h, today)
        assertStreak(w, h, today: today, current: 3, best: 3)
    }

    func testDaysBeforeTheStartDateEndTheWalk() {
        var w = World()
        let h = w.build(start: monday)
        w.progress(h, days: days(from: day("2026-02-25"), count: 5)) // 25 Feb – 1 Mar, before the start
        w.progress(h, days: days(from: monday, count: 3))
        assertStreak(w, h, today: day("2026-03-05"), current: 3, best: 3)
    }

    func testMovingTheStartDateLaterDropsEarlierSuccesses() {
        var w = World()
        var h = w.build(start: monday)
        w.progress(h, days: days(from: monday, count: 5))
        h = w.set(h, .startDate(day("2026-03-05")))
        assertStreak(w, h, today: day("2026-03-07"), current: 2, best: 2)
    }

    func testHabitStartingInTheFutureHasNoStreak() {
        var w = World()
        let h = w.build(start: day("2026-04-01"))
        w.progress(h, monday)
        assertStreak(w, h, today: monday, current: 0, best: 0)
    }

    func testDaysOffTheWeekdayScheduleNeitherCountNorBreak() {
        var w = World()
        let h = w.build(start: monday, schedule: .weekdays([.monday, .wednesday, .friday]))
        // Mon 2, Wed 4, Fri 6, Mon 9 done; Tuesdays, Thursdays and the weekend are not due.
        w.progress(h, days: [day("2026-03-02"), day("2026-03-04"), day("2026-03-06"), day("2026-03-09")])
        w.progress(h, day("2026-03-07")) // a Saturday check-in does not add to the streak
        assertStreak(w, h, today: day("2026-03-10"), current: 4, best: 4)
        // Wednesday the 11th is missed; on Thursday the streak is gone.
        assertStreak(w, h, today: day("2026-03-12"), current: 0, best: 4)
    }

    func testEveryNDaysStreakCountsOnlyTheDueDays() {
        var w = World()
        let h = w.build(start: monday, schedule: .everyNDays(3))
        // Due on the 2nd, 5th, 8th and 11th.
        w.progress(h, days: [day("2026-03-02"), day("2026-03-05"), day("2026-03-08")])
        w.progress(h, day("2026-03-09")) // off day: ignored
        assertStreak(w, h, today: day("2026-03-11"), current: 3, best: 3)
        assertStreak(w, h, today: day("2026-03-10"), current: 3, best: 3)
        w.progress(h, day("2026-03-11"))
        assertStreak(w, h, today: day("2026-03-11"), current: 4, best: 4)
        // Missing the 14th breaks it once the 14th is over.
        assertStreak(w, h, today: day("2026-03-15"), current: 0, best: 4)
    }

    func testLimitHabitStreakGrowsWithoutCheckInsAndBreaksWhenExceeded() {
        var w = World()
        let h = w.limit(start: monday, goal: 1)
        let today = day("2026-03-06")
        // Monday to Thursday are over; today (Friday) is not settled yet.
        assertStreak(w, h, today: today, current: 4, best: 4)
        assertStreak(w, h, today: today.adding(1), current: 5, best: 5)
        w.progress(h, day("2026-03-04"), 2)
        assertStreak(w, h, today: today, current: 1, best: 2)
    }

    func testALimitHabitStreakStartsOnlyWhenItsFirstDayIsOver() {
        var w = World()
        let h = w.limit(start: monday, goal: 1)
        assertStreak(w, h, today: monday, current: 0, best: 0)
        XCTAssertTrue(w.state.summary(h, on: monday, today: monday).completed, "within its limit so far")
        w.progress(h, monday, 1)
        assertStreak(w, h, today: monday, current: 0, best: 0)
        assertStreak(w, h, today: monday.adding(1), current: 1, best: 1)
    }

    func testLimitExceededTodayNeitherCountsNorBreaksUntilTheDayIsOver() {
        var w = World()
        let h = w.limit(start: monday, goal: 1)
        let today = day("2026-03-04")
        assertStreak(w, h, today: today, current: 2, best: 2)
        w.progress(h, today, 3)
        assertStreak(w, h, today: today, current: 2, best: 2) // going over today takes nothing back yet
        assertStreak(w, h, today: today.adding(1), current: 0, best: 2)
    }

    func testArchivedHabitStreakStopsAtTheArchiveDate() {
        var w = World()
        var h = w.build(start: monday)
        w.progress(h, days: days(from: monday, count: 4)) // 2nd–5th
        h = w.set(h, .archivedFrom(day("2026-03-06")))
        assertStreak(w, h, today: day("2026-03-20"), current: 4, best: 4)
    }
}

final class WeeklyStreakTests: XCTestCase {
    private func assertWeeks(_ w: World, _ h: Habit, today: LocalDay, current: Int, best: Int,
                             weekStart: Weekday = .monday,
                             file: StaticString = #filePath, line: UInt = #line) {
        let s = w.state.streaks(h, asOf: today, today: today, settings: RuleSettings(weekStart: weekStart))
        XCTAssertEqual(s.current, current, "current streak in weeks", file: file, line: line)
        XCTAssertEqual(s.best, best, "best streak in weeks", file: file, line: line)
    }

    /// Successes on the given weekday offsets (0 = Monday) of the week starting `weekMonday`.
    private func succeed(_ w: inout World, _ h: Habit, week weekMonday: LocalDay, _ offsets: [Int],
                         file: StaticString = #filePath, line: UInt = #line) {
        for o in offsets { w.progress(h, weekMonday.adding(o), file: file, line: line) }
    }

    func testWeeksMeetingTheQuotaCountAndTheRunningWeekNeitherCountsNorBreaks() {
        var w = World()
        let h = w.build(start: monday, schedule: .perWeek(3))
        succeed(&w, h, week: monday, [0, 2, 4])
        succeed(&w, h, week: monday.adding(7), [1, 3, 5])
        succeed(&w, h, week: monday.adding(14), [0])
        let wednesdayOfWeek3 = monday.adding(16)
        assertWeeks(w, h, today: wednesdayOfWeek3, current: 2, best: 2)
        XCTAssertEqual(w.state.summary(h, on: wednesdayOfWeek3, today: wednesdayOfWeek3).streakUnit, "weeks")
    }

    func testTheRunningWeekCountsAsSoonAsTheQuotaIsMet() {
        var w = World()
        let h = w.build(start: monday, schedule: .perWeek(3))
        succeed(&w, h, week: monday, [0, 1, 2])
        succeed(&w, h, week: monday.adding(7), [0, 1])
        assertWeeks(w, h, today: monday.adding(8), current: 1, best: 1)
        succeed(&w, h, week: monday.adding(7), [2])
        assertWeeks(w, h, today: monday.adding(9), current: 2, best: 2)
    }

    func testAFinishedWeekShortOfTheQuotaBreaksTheStreak() {
        var w = World()
        let h = w.build(start: monday, schedule: .perWeek(3))
        succeed(&w, h, week: monday, [0, 1, 2])
        succeed(&w, h, week: monday.adding(7), [0, 1, 2, 3])
        succeed(&w, h, week: monday.adding(14), [0, 6]) // only 2 of 3
        assertWeeks(w, h, today: monday.adding(21), current: 0, best: 2)
        succeed(&w, h, week: monday.adding(21), [0, 1, 2])
        assertWeeks(w, h, today: monday.adding(23), current: 1, best: 2)
    }

    func testExtraSuccessesInAWeekCountThatWeekOnlyOnce() {
        var w = World()
        let h = w.build(start: monday, schedule: .perWeek(2))
        succeed(&w, h, week: monday, [0, 1, 2, 3, 4, 5, 6])
        assertWeeks(w, h, today: monday.adding(7), current: 1, best: 1)
    }

    func testWeekStartSettingDecidesWhichDaysShareAWeek() {
        var w = World()
        let wednesday = day("2026-03-04")
        let h = w.build(start: wednesday, schedule: .perWeek(2))
        // Saturday + Sunday twice over.
        w.progress(h, days: [day("2026-03-07"), day("2026-03-08"), day("2026-03-14"), day("2026-03-15")])
        let today = day("2026-03-16") // a Monday
        // Monday weeks: 2–8 March has Sat 7 + Sun 8, 9–15 March has Sat 14 + Sun 15.
        assertWeeks(w, h, today: today, current: 2, best: 2, weekStart: .monday)
        // Sunday weeks: 1–7 March has only Sat 7 (finished, broken); 8–14 has Sun 8 + Sat 14;
        // 15–21 is running with Sun 15.
        assertWeeks(w, h, today: today, current: 1, best: 1, weekStart: .sunday)
    }

    func testSkippedDaysLowerTheWeeksRequirement() {
        var w = World()
        let h = w.build(start: monday, schedule: .perWeek(3))
        for o in 0..<5 { w.skip(h, monday.adding(o)) } // Monday–Friday skipped: 2 days left
        succeed(&w, h, week: monday, [5, 6])
        succeed(&w, h, week: monday.adding(7), [0, 1, 2])
        assertWeeks(w, h, today: monday.adding(14), current: 2, best: 2)
    }

    func testSkippedDaysDoNotCountAsSuccessesInAWeek() {
        var w = World()
        let h = w.build(start: monday, schedule: .perWeek(3))
        succeed(&w, h, week: monday, [0, 1, 2])
        w.skip(h, monday.adding(2)) // the Wednesday success is skipped: 2 of 3 among 6 days
        assertWeeks(w, h, today: monday.adding(7), current: 0, best: 0)
    }

    func testAFullySkippedWeekNeitherCountsNorBreaks() {
        var w = World()
        let h = w.build(start: monday, schedule: .perWeek(3))
        succeed(&w, h, week: monday, [0, 1, 2])
        for o in 0..<7 { w.skip(h, monday.adding(7 + o)) }
        succeed(&w, h, week: monday.adding(14), [0, 1, 2])
        assertWeeks(w, h, today: monday.adding(21), current: 2, best: 2)
    }

    func testAFirstPartialWeekNeedsOnlyTheDaysAfterTheStart() {
        var w = World()
        let sunday = day("2026-03-08")
        let h = w.build(start: sunday, schedule: .perWeek(3))
        w.progress(h, sunday) // one day available in the first Monday week: one success is enough
        assertWeeks(w, h, today: sunday.adding(1), current: 1, best: 1)
    }

    func testAWeekBeforeTheQuotaCanStillBeMetDoesNotBreakWhileRunning() {
        var w = World()
        let h = w.build(start: monday, schedule: .perWeek(3))
        succeed(&w, h, week: monday, [0, 1, 2])
        // Sunday of week 2 with nothing done yet: the week is still running.
        assertWeeks(w, h, today: monday.adding(13), current: 1, best: 1)
        // Monday of week 3: week 2 is over and short.
        assertWeeks(w, h, today: monday.adding(14), current: 0, best: 1)
    }
}
