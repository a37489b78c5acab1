import Foundation
import XCTest
@testable import HabitCore

/// The chart series, compared with values worked out by hand. 2026-11-02, 11-09 and 11-16
/// are Mondays; "today" is Sunday 2026-11-22 unless a test says otherwise.
final class ChartSeriesTests: XCTestCase {
    let mon = LocalDay(year: 2026, month: 11, day: 2)!
    let today = LocalDay(year: 2026, month: 11, day: 22)!
    func d(_ n: Int) -> LocalDay { LocalDay(year: 2026, month: 11, day: n)! }

    // MARK: Score

    func testScoreSeriesGivesStrengthOfEveryDayInOnePass() {
        var w = World()
        let h = w.build(start: mon)
        w.progress(h, days: [d(2), d(3), d(5), d(6), d(7), d(10), d(11)])
        w.skip(h, d(8))
        let series = w.state.scoreSeries(h, today: today, span: .all, points: 1000)
        XCTAssertEqual(series.map(\.day), days(from: mon, count: 21))
        for p in series { assertClose(p.score, w.state.strength(h, asOf: p.day), accuracy: 1e-12, "\(p.day)") }
        // Day one: 1 − 0.5^(1/13); the skipped 8th keeps the 7th's score.
        assertClose(series[0].score, 1 - pow(0.5, 1.0 / 13), accuracy: 1e-12)
        XCTAssertEqual(series[6].day, d(8))
        XCTAssertEqual(series[6].score, w.state.strength(h, asOf: d(7)))
    }

    func testScoreSeriesIsDownsampledToTheLastDayOfEqualRuns() {
        var w = World()
        let h = w.build(start: mon)
        w.progress(h, days: days(from: mon, count: 10))
        let series = w.state.scoreSeries(h, today: d(11), span: .all, points: 5)
        XCTAssertEqual(series.map(\.day), [d(3), d(5), d(7), d(9), d(11)])
        XCTAssertEqual(series.last?.score, w.state.strength(h, asOf: d(11)))
    }

    func testScoreSeriesOfAHabitYoungerThanTheSpanStartsOnItsStartDate() {
        var w = World()
        let h = w.build(start: d(20))
        w.progress(h, d(20))
        let series = w.state.scoreSeries(h, today: today, span: .threeMonths, points: 80)
        XCTAssertEqual(series.map(\.day), [d(20), d(21), d(22)])
        // A span shorter than the history starts three months back.
        let old = w.build("Old", start: LocalDay(year: 2025, month: 1, day: 1)!)
        let recent = w.state.scoreSeries(old, today: today, span: .threeMonths, points: 1000)
        XCTAssertEqual(recent.first?.day, LocalDay(year: 2026, month: 8, day: 23)!)
        XCTAssertEqual(recent.last?.day, today)
        XCTAssertEqual(w.state.scoreSeries(w.build("Later", start: d(30)), today: today, span: .all, points: 10), [])
    }

    // MARK: History

    func testHistoryPerWeekWithASkippedWeek() {
        var w = World()
        let h = w.build(start: mon)
        w.progress(h, days: days(from: mon, count: 5))
        for day in days(from: d(9), count: 7) { w.skip(h, day) }
        w.progress(h, days: [d(16), d(18)])
        let s = w.state.historySeries(h, today: today, bucket: .week)
        XCTAssertEqual(s.measure, .completions)
        XCTAssertEqual(s.buckets.map(\.start), [d(2), d(9), d(16)])
        XCTAssertEqual(s.buckets.map(\.end), [d(8), d(15), d(22)])
        XCTAssertEqual(s.buckets.map(\.value), [5, 0, 2])
        XCTAssertEqual(s.buckets.map(\.due), [7, 0, 7])
        XCTAssertEqual(s.buckets.map(\.skipped), [0, 7, 0])
        XCTAssertEqual(s.buckets.map(\.goal), [7, 0, 7])
        let month = w.state.historySeries(h, today: today, bucket: .month)
        XCTAssertEqual(month.buckets.map(\.value), [7])
        XCTAssertEqual(month.buckets.map(\.goal), [14])
    }

    func testHistoryOfAnEveryThreeDaysHabitCountsEveryThirdDayAsDue() {
        var w = World()
        let h = w.build(start: mon, schedule: .everyNDays(3))
        w.progress(h, days: [d(2), d(5), d(11)])
        let weeks = w.state.historySeries(h, today: today, bucket: .week)
        // Due: the 2nd, 5th, 8th | 11th, 14th | 17th, 20th.
        XCTAssertEqual(weeks.buckets.map(\.due), [3, 2, 2])
        XCTAssertEqual(weeks.buckets.map(\.value), [2, 1, 0])
        XCTAssertEqual(weeks.buckets.map(\.goal), [3, 2, 2])
        let months = w.state.historySeries(h, today: today, bucket: .month)
        XCTAssertEqual(months.buckets.map(\.goal), [7])
    }

    func testHistoryOfALimitHabitSumsUsesUnderAGoalCeiling() {
        var w = World()
        let h = w.limit(start: d(16), goal: 2 * Amount.scale)
        w.progress(h, d(16), 3 * Amount.scale)
        w.progress(h, d(17), Amount.scale)
        let s = w.state.historySeries(h, today: today, bucket: .week)
        XCTAssertEqual(s.measure, .uses)
        XCTAssertEqual(s.buckets.count, 1)
        XCTAssertEqual(s.buckets[0].value, 4 * Amount.scale)
        XCTAssertEqual(s.buckets[0].goal, Double(14 * Amount.scale))
        XCTAssertEqual(s.buckets[0].done, 6)
    }

    func testHistoryOfANPerWeekHabitAsksEachWeekForItsQuota() {
        var w = World()
        let h = w.build(start: mon, schedule: .perWeek(3))
        w.progress(h, days: [d(2), d(3), d(4), d(5), d(10)])
        w.skip(h, d(14)); w.skip(h, d(15))
        let s = w.state.historySeries(h, today: d(15), bucket: .week)
        XCTAssertEqual(s.buckets.map(\.value), [4, 1])
        XCTAssertEqual(s.buckets.map(\.goal), [3, 3], "min(3, 5 days not skipped)")
        XCTAssertEqual(s.buckets.map(\.due), [3, 3])
        let m = w.state.historySeries(h, today: d(15), bucket: .month)
        XCTAssertEqual(m.buckets[0].goal, 6)
    }

    func testHistoryOfACountedHabitSumsAmounts() {
        var w = World()
        let h = w.build("Water", start: d(16), goal: 8 * Amount.scale)
        w.progress(h, d(16), 8 * Amount.scale)
        w.progress(h, d(17), 2500)
        let s = w.state.historySeries(h, today: today, bucket: .year)
        XCTAssertEqual(s.measure, .amount)
        XCTAssertEqual(s.buckets.map(\.start), [d(16)], "the year's first tracked day")
        XCTAssertEqual(s.buckets.map(\.end), [today])
        XCTAssertEqual(s.buckets[0].value, 10_500)
        XCTAssertEqual(s.buckets[0].goal, Double(7 * 8 * Amount.scale))
        XCTAssertEqual(s.buckets[0].done, 1)
    }

    // MARK: Weekday frequency

    func testWeekdayFrequencyShowsTheMissedFridays() {
        var w = World()
        let h = w.build(start: mon)
        w.progress(h, days: days(from: mon, count: 20).filter { $0.weekday != .friday && $0 != d(12) })
        w.skip(h, d(12))
        let f = w.state.weekdayFrequency(h, today: today)
        // Today (Sunday the 22nd) is not done yet, so it is not counted.
        XCTAssertEqual(f.weekdays.map(\.done), [3, 3, 3, 2, 0, 3, 2])
        XCTAssertEqual(f.weekdays.map(\.due), [3, 3, 3, 2, 3, 3, 2])
        XCTAssertEqual(f.weekdays[4].ratio, 0)
        XCTAssertEqual(f.months.map(\.month), [LocalDay(year: 2026, month: 11, day: 1)!])
        XCTAssertEqual(f.months[0].weekdays, f.weekdays)
        w.progress(h, today)
        XCTAssertEqual(w.state.weekdayFrequency(h, today: today).weekdays[6], WeekdayCount(done: 3, due: 3))
    }

    // MARK: Streaks

    func testBestStreaksAgreeWithTheStreakRulesAndSkips() {
        var w = World()
        let h = w.build(start: mon)
        w.progress(h, days: [d(2), d(3), d(4), d(5), d(7), d(8), d(9), d(11)] + days(from: d(13), count: 9))
        w.skip(h, d(10))
        let runs = w.state.bestStreaks(h, today: today, top: 2)
        XCTAssertEqual(runs, [StreakRun(start: d(13), end: d(21), length: 9, isCurrent: true),
                              StreakRun(start: d(7), end: d(11), length: 4, isCurrent: false)])
        let s = w.state.streaks(h, asOf: today, today: today)
        XCTAssertEqual(s.current, 9)
        XCTAssertEqual(s.best, 9)
        XCTAssertEqual(w.state.bestStreaks(h, today: today, top: 10).count, 3)
    }

    func testBestStreaksOfANPerWeekHabitAreWeeksAcrossASkippedWeek() {
        var w = World()
        let h = w.build(start: mon, schedule: .perWeek(3))
        w.progress(h, days: [d(2), d(3), d(4), d(16), d(17), d(18)])
        for day in days(from: d(9), count: 7) { w.skip(h, day) }
        XCTAssertEqual(w.state.bestStreaks(h, today: today, top: 3),
                       [StreakRun(start: d(2), end: d(22), length: 2, isCurrent: true, period: .week)])
    }

    func testBestStreaksOfALimitHabitSettleADayOnlyWhenItIsOver() {
        var w = World()
        let h = w.limit(start: d(16), goal: 0)
        w.progress(h, d(18))
        w.progress(h, today)
        XCTAssertEqual(w.state.bestStreaks(h, today: today, top: 3),
                       [StreakRun(start: d(19), end: d(21), length: 3, isCurrent: true),
                        StreakRun(start: d(16), end: d(17), length: 2, isCurrent: false)])
    }

    // MARK: Difficulty

    func testDifficultyPerWeekAveragesRatedDays() {
        var w = World()
        let h = w.build(start: mon)
        w.rate(h, d(2), 2); w.rate(h, d(3), 4); w.rate(h, d(16), 5)
        let weeks = w.state.difficultyWeeks(h, today: today)
        XCTAssertEqual(weeks.map(\.weekStart), [d(2), d(9), d(16)])
        XCTAssertEqual(weeks.map(\.average), [3.0, nil, 5.0])
        XCTAssertEqual(weeks.map(\.rated), [2, 0, 1])
    }

    // MARK: Overview

    func testOverviewStatesCompletionAndXP() {
        var w = World()
        let read = w.build(start: mon)
        w.progress(read, days: [d(16), d(19), d(21)])
        w.skip(read, d(18))
        let water = w.build("Water", start: d(20), goal: 8 * Amount.scale)
        w.progress(water, d(20), 8 * Amount.scale)
        w.progress(water, d(21), 3 * Amount.scale)
        let sugar = w.limit("Sugar", start: d(16), goal: 0)
        w.progress(sugar, d(17))
        let gym = w.build("Gym", start: d(9), schedule: .perWeek(3))
        w.progress(gym, days: [d(16), d(18)])
        let stretch = w.build("Stretch", start: d(16), schedule: .everyNDays(3))
        w.progress(stretch, d(16))

        let o = w.state.overview(today: today, weeks: 1)
        XCTAssertEqual(o.first, d(16))
        XCTAssertEqual(o.last, today)
        let rows = Dictionary(uniqueKeysWithValues: o.rows.map { ($0.habit.name, $0.days) })
        XCTAssertEqual(rows["Read"], [.done, .missed, .skipped, .done, .missed, .done, .pending])
        XCTAssertEqual(rows["Water"], [.inactive, .inactive, .inactive, .inactive, .done, .partly, .pending])
        XCTAssertEqual(rows["Sugar"], [.done, .missed, .done, .done, .done, .done, .pending])
        XCTAssertEqual(rows["Gym"], [.done, .notDue, .done, .notDue, .notDue, .notDue, .pending])
        XCTAssertEqual(rows["Stretch"], [.done, .notDue, .notDue, .missed, .notDue, .notDue, .pending])
        XCTAssertEqual(o.completion, [1, 0, 1, 2.0 / 3, 2.0 / 3, 2.0 / 3, nil])
        // 250 + 0 + 150 + 100 + 100 + 100: habit-days earned, and perfect days on the 16th and 18th.
        XCTAssertEqual(o.xpWeeks, [XPWeek(weekStart: d(16), xp: 700, totalXP: 700, level: 4, levelUp: true)])
        XCTAssertEqual(w.state.stats(today: today).xp, 700)
    }

    func testOverviewOfAnNPerWeekHabitMarksTheDaysOfAMissedWeek() {
        var w = World()
        let gym = w.build("Gym", start: mon, schedule: .perWeek(3))
        w.progress(gym, days: [d(2), d(3), d(4), d(9)])
        w.skip(gym, d(15))
        let o = w.state.overview(today: d(18), weeks: 3)
        XCTAssertEqual(o.rows[0].days[0..<14], [.done, .done, .done, .notDue, .notDue, .notDue, .notDue,
                                                 .done, .missed, .missed, .missed, .missed, .missed, .skipped])
        // Each of the first three successes of a week earns 50 and, as the only habit, makes
        // a perfect day (50 more); the fourth success is beyond the quota.
        XCTAssertEqual(o.xpWeeks.map(\.xp), [300, 100, 0])
        XCTAssertEqual(o.xpWeeks.map(\.totalXP), [300, 400, 400])
        XCTAssertEqual(o.xpWeeks.map(\.level), [3, 3, 3])
        XCTAssertEqual(o.xpWeeks.map(\.levelUp), [true, false, false])
    }

    func testOverviewShowsArchivedDaysAsInactiveAndLeavesOutHabitsArchivedBeforeIt() {
        var w = World()
        var kept = w.build("Kept", start: mon)
        w.progress(kept, days: [d(16), d(17)])
        kept = w.set(kept, .archivedFrom(d(18)))
        let gone = w.build("Gone", start: mon)
        w.set(gone, .archivedFrom(d(10)))
        let o = w.state.overview(today: today, weeks: 1)
        XCTAssertEqual(o.rows.map(\.habit.name), ["Kept"])
        XCTAssertEqual(o.rows[0].days, [.done, .done, .inactive, .inactive, .inactive, .inactive, .inactive])
        XCTAssertEqual(o.completion, [1, 1, nil, nil, nil, nil, nil])
        // The series of an archived habit end on its last tracked day.
        XCTAssertEqual(w.state.scoreSeries(kept, today: today, span: .all, points: 100).last?.day, d(17))
        XCTAssertEqual(w.state.historySeries(kept, today: today, bucket: .week).buckets.last?.end, d(17))
    }

    func testOverviewStartsOnTheEarliestStartOfItsHabitsNotOnBlankWeeks() {
        var w = World()
        // Thursday the 12th and Wednesday the 18th; nine weeks asked for.
        let walk = w.build("Walk", start: d(12))
        w.progress(walk, days: [d(12), d(13)])
        _ = w.build("Read", start: d(18))
        let o = w.state.overview(today: today, weeks: 9, fromFirstStart: true)
        XCTAssertEqual(o.first, d(12))
        XCTAssertEqual(o.completion.count, 11)
        XCTAssertEqual(o.rows.map { $0.days.first }, [.done, .inactive], "no column before the first start")
        // XP per whole week, the first from its week's Monday.
        XCTAssertEqual(o.xpWeeks.map(\.weekStart), [d(9), d(16)])
        XCTAssertEqual(o.xpWeeks.map(\.totalXP).last, w.state.stats(today: today).xp)
        // A window that starts after every start is kept as it is, and so are weeks asked
        // for without `fromFirstStart` (`graph --weeks 9`).
        XCTAssertEqual(w.state.overview(today: today, weeks: 1, fromFirstStart: true).first, d(16))
        XCTAssertEqual(w.state.overview(today: today, weeks: 9).first, d(16).adding(-56))
    }
}
